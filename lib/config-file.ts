import { parse as parseToml } from 'smol-toml';
import { ConfigError } from './errors.js';

// The config file (`--config FILE`, TOML) parsed once; each section is checked by the room
// that owns it (`[[sink]]`: daemon/forward/config.ts, `[safety]`: daemon/safety/config.ts,
// `[[alarm]]`: daemon/alarms/config.ts, `[[notify]]`: daemon/forward/notify-config.ts,
// `[conditions]`: daemon/conditions/config.ts, `[boltwood]`: daemon/outputs/boltwood-config.ts,
// `[alpaca]`: daemon/alpaca/config.ts).
// A top-level key no room owns is refused, so a misspelt section is never silently ignored.

/** One TOML table as parsed. */
export type ConfigTable = Readonly<Record<string, unknown>>;

/** The top-level keys of the config file and what each holds (the refusal of another key lists them). */
export const CONFIG_SECTIONS: Readonly<Record<string, string>> = {
  sink: '[[sink]]',
  safety: '[safety]',
  alarm: '[[alarm]]',
  notify: '[[notify]]',
  conditions: '[conditions]',
  boltwood: '[boltwood]',
  alpaca: '[alpaca]',
};

/** The config file's text parsed, its top-level keys checked; `where` names the file in errors. */
export function parseConfigFile(text: string, where: string): ConfigTable {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError('--config', `a TOML file (${where}: ${(error as Error).message.split('\n')[0]})`, where);
  }
  const unknown = Object.keys(doc).find((k) => !Object.hasOwn(CONFIG_SECTIONS, k));
  if (unknown !== undefined) {
    throw new ConfigError(`${where}: ${unknown}`, `a known key (${Object.values(CONFIG_SECTIONS).join(', ')})`, unknown);
  }
  return doc;
}

/** The tables of an array-of-tables section (`[[name]]`), none when absent. */
export function tablesOf(doc: ConfigTable, key: string, where: string): ConfigTable[] {
  const tables = doc[key] ?? [];
  if (!Array.isArray(tables) || tables.some((t) => t === null || typeof t !== 'object' || Array.isArray(t))) {
    throw new ConfigError(`${where}: ${key}`, `an array of tables ([[${key}]])`, tables);
  }
  return tables as ConfigTable[];
}

/** Whether a parsed TOML value is a table (not an array, a date or a scalar). */
export function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** Refuse a key of `table` that is not one of `keys` (`at` names the table; `doc` the page that lists them): ConfigError naming the key. */
export function knownKeysOnly(table: Record<string, unknown>, keys: readonly string[], at: string, doc: string): void {
  const unknown = Object.keys(table).find((k) => !keys.includes(k));
  if (unknown !== undefined) throw new ConfigError(`${at}: ${unknown}`, `a known key (${keys.join(', ')}; see docs/${doc})`, unknown);
}
