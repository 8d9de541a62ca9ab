import { ConfigError } from '../../lib/errors.js';
import { isTable, knownKeysOnly } from '../../lib/config-file.js';

// The `[alpaca]` section of the config file, checked at start-up (docs/configuration.md,
// docs/integrations.md). Off unless present. Unknown keys are refused; every mistake is a
// ConfigError naming the key's path (`meridian.toml: alpaca: port`).

/** The ASCOM Alpaca server's settings. */
export interface AlpacaSpec {
  /** The Alpaca port (0: an ephemeral one, shown in the log and GET /status). */
  readonly port: number;
  /** The address it listens on. */
  readonly bind: string;
  /** The UDP discovery port, or undefined when discovery is off. */
  readonly discoveryPort: number | undefined;
  /** The management API's ServerName and Location. */
  readonly serverName: string;
  readonly location: string;
}

/** The defaults of the keys (docs/configuration.md). */
export const ALPACA_DEFAULTS = { port: 11111, bind: '127.0.0.1', discovery_port: 32227, server_name: 'Meridian', location: '' } as const;

const KEYS = ['port', 'bind', 'discovery', 'discovery_port', 'server_name', 'location'];
const MAX_TEXT = 64;

/** The `[alpaca]` section of the parsed config file (`where` names the file), undefined when there is none. */
export function resolveAlpaca(section: unknown, where: string): AlpacaSpec | undefined {
  if (section === undefined) return undefined;
  const at = `${where}: alpaca`;
  if (!isTable(section)) throw new ConfigError(at, 'a table ([alpaca])', section);
  const table = section;
  knownKeysOnly(table, KEYS, at, 'configuration.md');
  const discovery = table.discovery ?? true;
  if (typeof discovery !== 'boolean') throw new ConfigError(`${at}: discovery`, 'true or false', discovery);
  const discoveryPort = portOf(table.discovery_port ?? ALPACA_DEFAULTS.discovery_port, `${at}: discovery_port`);
  return {
    port: portOf(table.port ?? ALPACA_DEFAULTS.port, `${at}: port`),
    bind: textOf(table.bind ?? ALPACA_DEFAULTS.bind, `${at}: bind`, 1),
    discoveryPort: discovery ? discoveryPort : undefined,
    serverName: textOf(table.server_name ?? ALPACA_DEFAULTS.server_name, `${at}: server_name`, 1),
    location: textOf(table.location ?? ALPACA_DEFAULTS.location, `${at}: location`, 0),
  };
}

function portOf(value: unknown, at: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 65535) {
    throw new ConfigError(at, 'a port number 0-65535 (0: an ephemeral port)', value);
  }
  return value;
}

function textOf(value: unknown, at: string, min: number): string {
  if (typeof value !== 'string' || [...value].length < min || [...value].length > MAX_TEXT || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new ConfigError(at, `a string of ${min}-${MAX_TEXT} characters without control characters`, value);
  }
  return value;
}
