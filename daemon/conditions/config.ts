import { ConfigError } from '../../lib/errors.js';
import { daemonTypeProblem, ExpressionError, parseExpression, type CompiledExpression } from '../rules/compile.js';
import { CONDITION_PROPERTIES, isConditionProperty, unitsFor, type CanonicalUnit, type ConditionProperty } from './units.js';
import { isTable, knownKeysOnly } from '../../lib/config-file.js';

// The `[conditions]` section of the config file (docs/configuration.md#conditions): each key a
// property (units.ts) mapped to one reading's field, `{ type, field, unit }`. The field is read
// by the rule language's own reference (`"TYPE".data.FIELD` compiled once here), so a field is
// written as in a rule and read by the one field reader of daemon/rules/. Every mistake is a
// ConfigError naming the key's path (`f.toml: conditions: windspeed: unit`).

/** One mapped property. */
export interface ConditionMapping {
  readonly property: ConditionProperty;
  readonly type: string;
  /** The field as written (`data.wind_kmh`). */
  readonly field: string;
  /** The unit the reading records (the canonical one when the mapping names none). */
  readonly unit: string;
  /** The property's canonical unit (what is published). */
  readonly canonical: CanonicalUnit;
  /** The field as a rule-language reference. */
  readonly reference: CompiledExpression;
}

/** The mappings, in the order of CONDITION_PROPERTIES (none without a section). */
export interface ConditionsConfig {
  readonly mappings: readonly ConditionMapping[];
}

const MAPPING_KEYS = ['type', 'field', 'unit'];
const MAX_TYPE_CHARS = 256;
const FIELD = /^(data|meta)([.[]|$)/;
const FIELD_HELP = 'a field of the reading written as in a rule (data, data.FIELD, data["odd key"], meta.FIELD; see docs/safety.md)';

/** The `[conditions]` section (`where` names the file); no mappings when it is absent. */
export function resolveConditions(section: unknown, where: string): ConditionsConfig {
  if (section === undefined) return { mappings: [] };
  const at = `${where}: conditions`;
  if (!isTable(section)) throw new ConfigError(at, 'a table ([conditions])', section);
  const names = Object.keys(CONDITION_PROPERTIES);
  const unknown = Object.keys(section).find((k) => !isConditionProperty(k));
  if (unknown !== undefined) throw new ConfigError(`${at}: ${unknown}`, `a known property (${names.join(', ')}; see docs/integrations.md)`, unknown);
  const mappings = names.filter((p) => section[p] !== undefined)
    .map((p) => mappingOf(p as ConditionProperty, section[p], `${at}: ${p}`));
  return { mappings };
}

function mappingOf(property: ConditionProperty, value: unknown, at: string): ConditionMapping {
  if (!isTable(value)) throw new ConfigError(at, 'a table such as { type = "weather", field = "data.temp_c" }', value);
  knownKeysOnly(value, MAPPING_KEYS, at, 'integrations.md');
  const type = value.type;
  if (typeof type !== 'string' || type === '' || type.length > MAX_TYPE_CHARS || /[\u0000-\u001f\u007f"\\]/.test(type)) {
    throw new ConfigError(`${at}: type`, `a type name (1-${MAX_TYPE_CHARS} characters, no control characters, quotes or backslashes)`, type ?? '(missing)');
  }
  const field = value.field;
  if (typeof field !== 'string' || !FIELD.test(field)) {
    throw new ConfigError(`${at}: field`, FIELD_HELP, field ?? '(missing)');
  }
  const own = daemonTypeProblem([type]);
  if (own !== undefined) throw new ConfigError(`${at}: type`, own.replace('an expression reading', 'a type that is'), type);
  const reference = fieldReference(type, field);
  if (reference === undefined) throw new ConfigError(`${at}: field`, FIELD_HELP, field);
  const canonical = CONDITION_PROPERTIES[property];
  const units = unitsFor(property);
  const unit = value.unit ?? canonical;
  if (typeof unit !== 'string' || !units.includes(unit)) {
    throw new ConfigError(`${at}: unit`, `a unit of ${property} (${units.join(', ')})`, unit);
  }
  return { property, type, field, unit, canonical, reference };
}

/** `field` of `type` as a rule-language reference; undefined when it is not exactly one field of that type. */
function fieldReference(type: string, field: string): CompiledExpression | undefined {
  let compiled: CompiledExpression;
  try {
    compiled = parseExpression(`"${type}".${field}`);
  } catch (error) {
    if (error instanceof ExpressionError) return undefined;
    throw error;
  }
  const root = compiled.root;
  return root.kind === 'reference' && root.candidates.length === 1 && root.candidates[0]!.type === type ? compiled : undefined;
}
