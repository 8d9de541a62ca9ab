import path from 'node:path';
import { ConfigError } from '../../lib/errors.js';
import { isTable, knownKeysOnly } from '../../lib/config-file.js';

// The `[boltwood]` section (docs/integrations.md#boltwood-clarity-ii-one-line-file): where the
// one-line file is written, how often, its units, and the thresholds of its condition flags
// (in the canonical units of [conditions]: sky minus ambient in degC, wind in m/s, light in lux).

/** The Boltwood writer's settings. */
export interface BoltwoodSpec {
  /** The file (absolute). */
  readonly path: string;
  /** The config file it was read from, as errors name it. */
  readonly where: string;
  /** How often it is rewritten (ms). */
  readonly everyMs: number;
  readonly temperatureUnit: 'C' | 'F';
  /** K km/h, M mph, m m/s. */
  readonly windUnit: 'K' | 'M' | 'm';
  /** Sky minus ambient (degC) at or above which the sky is cloudy, and very cloudy. */
  readonly cloudy: number;
  readonly veryCloudy: number;
  /** Wind (m/s) at or above which it is windy, and very windy. */
  readonly windy: number;
  readonly veryWindy: number;
  /** Sky brightness (lux) at or above which it is light, and very light. */
  readonly light: number;
  readonly veryLight: number;
}

const KEYS = ['path', 'every_s', 'temperature_unit', 'wind_unit', 'cloudy', 'very_cloudy', 'windy', 'very_windy', 'light', 'very_light'];
const DEFAULTS = { cloudy: -25, very_cloudy: -15, windy: 5, very_windy: 10, light: 10, very_light: 1000 };

/** The `[boltwood]` section (`where` names the file), undefined when there is none. */
export function resolveBoltwood(section: unknown, where: string): BoltwoodSpec | undefined {
  if (section === undefined) return undefined;
  const at = `${where}: boltwood`;
  if (!isTable(section)) throw new ConfigError(at, 'a table ([boltwood])', section);
  const table = section;
  knownKeysOnly(table, KEYS, at, 'integrations.md');
  const file = table.path;
  if (typeof file !== 'string' || !path.isAbsolute(file) || /[\u0000-\u001f\u007f]/.test(file) || file.endsWith('/')) {
    throw new ConfigError(`${at}: path`, 'an absolute path of a file', file ?? '(missing)');
  }
  const every = table.every_s ?? 5;
  if (typeof every !== 'number' || !(every >= 0.5 && every <= 3600)) throw new ConfigError(`${at}: every_s`, 'a number of seconds from 0.5 to 3600', every);
  const t = table.temperature_unit ?? 'C';
  if (t !== 'C' && t !== 'F') throw new ConfigError(`${at}: temperature_unit`, '"C" or "F"', t);
  const w = table.wind_unit ?? 'K';
  if (w !== 'K' && w !== 'M' && w !== 'm') throw new ConfigError(`${at}: wind_unit`, '"K" (km/h), "M" (mph) or "m" (m/s)', w);
  const [cloudy, veryCloudy] = pair(table, 'cloudy', 'very_cloudy', at);
  const [windy, veryWindy] = pair(table, 'windy', 'very_windy', at);
  const [light, veryLight] = pair(table, 'light', 'very_light', at);
  return { path: file, where, everyMs: Math.round(every * 1000), temperatureUnit: t, windUnit: w, cloudy, veryCloudy, windy, veryWindy, light, veryLight };
}

/** Two thresholds, the second at or above the first. */
function pair(table: Record<string, unknown>, low: keyof typeof DEFAULTS, high: keyof typeof DEFAULTS, at: string): [number, number] {
  const a = table[low] ?? DEFAULTS[low];
  const b = table[high] ?? DEFAULTS[high];
  if (typeof a !== 'number' || !Number.isFinite(a)) throw new ConfigError(`${at}: ${low}`, 'a number', a);
  if (typeof b !== 'number' || !Number.isFinite(b) || b < a) throw new ConfigError(`${at}: ${high}`, `a number at or above ${low} (${a})`, b);
  return [a, b];
}
