import { parse as parseToml } from 'smol-toml';
import { ConfigError } from './errors.js';

// The daemon's `--config FILE` (TOML), parsed once: each top-level section is checked by the
// room that owns it ([[sink]]: daemon/forward/config.ts; [[alarm]] and [[notify]]:
// daemon/alarms/config.ts and daemon/forward/notify-config.ts). A key no room owns is refused.

/** One TOML table as parsed. */
export type ConfigTable = Record<string, unknown>;

/** The top-level keys the config file may hold. */
export const CONFIG_SECTIONS = ['sink', 'alarm', 'notify'] as const;

/** The parsed config file, its top-level keys checked; `where` names the file in errors. */
export function parseConfigFile(text: string, where: string): ConfigTable {
  let doc: ConfigTable;
  try {
    doc = parseToml(text) as ConfigTable;
  } catch (error) {
    throw new ConfigError('--config', `a TOML file (${where}: ${(error as Error).message.split('\n')[0]})`, where);
  }
  const unknown = Object.keys(doc).filter((k) => !(CONFIG_SECTIONS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new ConfigError(`${where}: ${unknown[0]}`, `a known key (${CONFIG_SECTIONS.map((s) => `[[${s}]]`).join(', ')} tables)`, unknown[0]);
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
