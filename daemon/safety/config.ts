import { ConfigError } from '../../lib/errors.js';
import { daemonTypeProblem } from '../rules/compile.js';
import { CONDITION_KEYS, conditionOf, type ConditionSpec } from '../rules/condition.js';
import { parseDuration } from '../rules/duration.js';
import { isTable, knownKeysOnly } from '../../lib/config-file.js';

// The `[safety]` section of the config file, checked at start-up: the required types, the
// rules (each a condition of daemon/rules/), and `safe_for`. Unknown keys are refused; every
// mistake is a ConfigError naming the key's path (`the config file: safety rule 2 (dew): when`).

/** One `[[safety.rule]]`: its name and its condition. */
export interface SafetyRule {
  readonly name: string;
  readonly condition: ConditionSpec;
}

/** The verdict's settings (docs/safety.md). */
export interface SafetySpec {
  /** Types that must have a fresh reading (missing or stale: unsafe). */
  readonly required: readonly string[];
  /** How long the inputs must say safe, continuously, before the verdict does (ms). */
  readonly safeForMs: number;
  readonly rules: readonly SafetyRule[];
}

const SECTION_KEYS = ['required', 'safe_for', 'rule'];
const RULE_KEYS = ['name', ...CONDITION_KEYS];
// a name reasons and events show: printable, no quotes or separators that would confuse a reason
const RULE_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;
const MAX_TYPE_CHARS = 256;

/** The `[safety]` section of the parsed config file (`where` names the file), undefined when there is none. */
export function resolveSafety(section: unknown, where: string): SafetySpec | undefined {
  if (section === undefined) return undefined;
  const at = `${where}: safety`;
  if (!isTable(section)) throw new ConfigError(at, 'a table ([safety])', section);
  knownKeysOnly(section, SECTION_KEYS, at, 'safety.md');
  const rules = section.rule ?? [];
  if (!Array.isArray(rules)) throw new ConfigError(`${at}: rule`, 'an array of tables ([[safety.rule]])', rules);
  const spec: SafetySpec = {
    required: requiredTypes(section.required, `${at}: required`),
    safeForMs: section.safe_for === undefined ? 0 : parseDuration(section.safe_for, `${at}: safe_for`),
    rules: rules.map((rule: unknown, i) => ruleOf(rule, `${where}: safety rule ${i + 1}`)),
  };
  const names = new Set<string>();
  for (const rule of spec.rules) {
    if (names.has(rule.name)) throw new ConfigError(`${at}: rule name`, 'unique across [[safety.rule]] tables', rule.name);
    names.add(rule.name);
  }
  return spec;
}

function requiredTypes(value: unknown, at: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ConfigError(at, 'an array of type names', value);
  for (const type of value) {
    if (typeof type !== 'string' || type === '' || type.length > MAX_TYPE_CHARS || /[\u0000-\u001f\u007f]/.test(type)) {
      throw new ConfigError(at, `an array of type names (1-${MAX_TYPE_CHARS} characters, no control characters)`, type);
    }
  }
  const problem = daemonTypeProblem(value as string[]);
  if (problem !== undefined) throw new ConfigError(at, problem.replace('an expression reading', 'a list naming'), value);
  return [...new Set(value as string[])];
}

function ruleOf(rule: unknown, at: string): SafetyRule {
  if (!isTable(rule)) throw new ConfigError(at, 'a table ([[safety.rule]])', rule);
  const name = rule.name;
  if (typeof name !== 'string' || !RULE_NAME.test(name)) {
    throw new ConfigError(`${at}: name`, '1-64 letters, digits, spaces, ".", "_" or "-", starting with a letter or digit', name ?? '(missing)');
  }
  const named = `${at} (${name})`;
  knownKeysOnly(rule, RULE_KEYS, named, 'safety.md');
  return { name, condition: conditionOf(rule, named) };
}
