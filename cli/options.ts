import { ConfigError } from '../lib/errors.js';
import { DAEMON_SETTINGS } from '../lib/settings.js';

// Reading parsed options (sade/mri output) into typed values, once, at the boundary.
// A bad value is a ConfigError (exit 2) naming the option, what was expected and what was given.

/** Options as the argv parser gives them. */
export type ParsedOptions = Readonly<Record<string, unknown>>;

const daemonOptions = (kind: 'value' | 'switch') => DAEMON_SETTINGS.filter((s) => s.kind === kind).map((s) => s.flag.slice(2));

/** Options that take a value (kept as text by the parser: `--token 0123` stays "0123"): the daemon's settings and the commands' own. */
export const VALUE_OPTIONS = [...new Set([...daemonOptions('value'), 'log-file', 'timeout', 'interval', 'stale',
  'config', 'forward', 'data', 'meta', 'batch-size', 'start-line', 'since', 'from', 'to', 'run', 'max-age', 'theme', 'by', 'note', 'for', 'db', 'table', 'silent-after',
  'step', 'width', 'fields', 'html', 'svg', 'png'])];
/** Options that are switches (never swallow the next word: `--json weather`). */
export const SWITCH_OPTIONS = [...new Set([...daemonOptions('switch'), 'json', 'csv', 'follow', 'detach', 'partial', 'not-current', 'bell', 'md', 'utc'])];

/** A bad command line the parser did not catch: unknown command or option, extra argument (exit 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The text of a value option, undefined when not given; given twice or without a value is a usage error. */
export function textOption(opts: ParsedOptions, name: string): string | undefined {
  const value = opts[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new UsageError(`--${name} is given more than once`);
  if (value === '' || typeof value === 'boolean') throw new UsageError(`--${name} needs a value`);
  return String(value);
}

/** A repeatable value option: every value given, in order (none: empty). */
export function listOption(opts: ParsedOptions, name: string): string[] {
  const value = opts[name];
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  for (const v of values) if (v === '' || typeof v === 'boolean') throw new UsageError(`--${name} needs a value`);
  return values.map(String);
}

/** A switch: true when given (the last one wins when repeated; `--no-json` gives false). */
export function switchOption(opts: ParsedOptions, name: string): boolean {
  const value = opts[name];
  return (Array.isArray(value) ? value[value.length - 1] : value) === true;
}

// Node's timers hold at most 2^31-1 ms; a longer wait would fire after 1 ms (a poll loop
// asked to wait a month would spin)
const MAX_SECONDS = 2_147_483;

/**
 * A duration option in seconds (decimals allowed), as ms; `fallbackMs` when not given.
 * `bounds` narrows the accepted range (seconds); every duration stays within Node's timers.
 */
export function secondsOption(opts: ParsedOptions, name: string, fallbackMs: number,
  bounds: { min?: number; max?: number } = {}): number {
  const text = textOption(opts, name);
  if (text === undefined) return fallbackMs;
  const seconds = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(text) ? Number(text) : NaN;
  const ms = Math.round(seconds * 1000);
  const min = bounds.min ?? 0.001;
  const max = Math.min(bounds.max ?? MAX_SECONDS, MAX_SECONDS);
  // one message for every mistake (a word, 1e-9, 0, below the floor, beyond the ceiling): what is accepted
  if (!Number.isFinite(seconds) || ms < Math.max(1, Math.round(min * 1000)) || seconds > max) {
    // examples within the option's own range (--silent-after takes no 0.5)
    const examples = [60, 0.5].filter((x) => x >= min && x <= max);
    throw new ConfigError(`--${name}`, `a number of seconds from ${min} to ${max} (such as ${(examples.length > 0 ? examples : [min]).join(' or ')})`, text);
  }
  return ms;
}

/**
 * Join a value option and a value that looks like an option (`--interval -1`) into one word
 * (`--interval=-1`), so the value is judged as a value ("must be a positive number; got
 * -1") instead of being taken for an unknown option `-1`.
 */
export function joinNegativeValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (/^--[a-z-]+$/.test(arg) && VALUE_OPTIONS.includes(arg.slice(2)) && next !== undefined && /^-\d|^-\.\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** Refuse options that only make sense together with another one (`--interval` without `--follow`). */
export function requireWith(opts: ParsedOptions, names: readonly string[], needed: string): void {
  for (const name of names) {
    if (opts[name] !== undefined) throw new UsageError(`--${name} only applies with --${needed}`);
  }
}

/** Refuse words left over after the command's arguments. */
export function noExtraArguments(opts: ParsedOptions): void {
  const rest = opts._;
  if (Array.isArray(rest) && rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(String(rest[0]))}`);
}

/** Seconds as given back in messages: "10s", "0.5s". */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
