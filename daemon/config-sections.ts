import { parseConfigFile } from '../lib/config-file.js';
import { ConfigError } from '../lib/errors.js';
import { resolveAlarms, type AlarmSpec } from './alarms/config.js';
import { resolveAlpaca, type AlpacaSpec } from './alpaca/config.js';
import { resolveConditions, type ConditionsConfig } from './conditions/config.js';
import { resolveSinks } from './forward/config.js';
import { resolveNotify } from './forward/notify-config.js';
import type { SinkSpec } from './forward/sink.js';
import { resolveBoltwood, type BoltwoodSpec } from './outputs/boltwood-config.js';
import { resolveSafety, type SafetySpec } from './safety/config.js';
import { ExpressionConfigError } from './rules/compile.js';

// The `--config FILE` (TOML) parsed once and each section checked by the room that owns it:
// [[sink]] and [[notify]] (daemon/forward/), [safety] (daemon/safety/), [[alarm]] (daemon/alarms/),
// [conditions] (daemon/conditions/), [boltwood] (daemon/outputs/), [alpaca] (daemon/alpaca/). Any mistake is a
// ConfigError naming the key's path (`f.toml: alarm 2: severity`).

/** What the config file and the `--forward` URLs configure. */
export interface ConfigSections {
  /** Every forwarding sink: the [[sink]] tables, the --forward URLs, then the [[notify]] webhooks. */
  forward: SinkSpec[];
  alarms: AlarmSpec[];
  /** The [safety] section; undefined without one (the verdict is then unsafe, not configured). */
  safety: SafetySpec | undefined;
  /** The [conditions] mapping (no mappings without the section). */
  conditions: ConditionsConfig;
  /** The [boltwood] section; undefined without one (no file is written). */
  boltwood: BoltwoodSpec | undefined;
  /** The [alpaca] section; undefined without one (no Alpaca server). */
  alpaca: AlpacaSpec | undefined;
}

/** The sections of the config file's text (none without one) and the `--forward` URLs, checked. */
export function resolveConfigSections(input: { configText?: string; configFile?: string; forward?: readonly string[] },
  env: Readonly<Record<string, string | undefined>>): ConfigSections {
  const where = input.configFile ?? 'the config file';
  const configDoc = input.configText === undefined ? {} : parseConfigFile(input.configText, where);
  const sinks = resolveSinks({ configFile: input.configFile, configDoc, forward: input.forward }, env);
  const notify = resolveNotify(configDoc, where, env);
  const names = new Set(sinks.map((s) => s.name));
  for (const n of notify) {
    if (names.has(n.name)) throw new ConfigError('sink name', 'unique across [[sink]] and [[notify]] (it names the cursor file)', n.name);
    names.add(n.name);
  }
  const [safety, alarms] = withLine(input.configText, where, () => [resolveSafety(configDoc.safety, where), resolveAlarms(configDoc, where, notify.length > 0)] as const);
  const conditions = resolveConditions(configDoc.conditions, where);
  return {
    forward: [...sinks, ...notify], alarms, safety, conditions,
    boltwood: resolveBoltwood(configDoc.boltwood, where), alpaca: resolveAlpaca(configDoc.alpaca, where),
  };
}

/** `resolve()`, an expression it refuses named with its line of the config file (`f.toml line 7: safety rule 1 (wind): when must be ...`). */
function withLine<T>(text: string | undefined, where: string, resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    if (!(error instanceof ExpressionConfigError) || text === undefined || !error.option.startsWith(where)) throw error;
    // the expression as TOML spells it: a basic string (JSON's escapes of " and \) or a literal one
    const spellings = [JSON.stringify(error.text), `'${error.text}'`];
    const line = text.split('\n').findIndex((l) => spellings.some((s) => l.includes(s)));
    if (line < 0) throw error;
    throw new ConfigError(`${where} line ${line + 1}${error.option.slice(where.length)}`, error.expected, error.text);
  }
}
