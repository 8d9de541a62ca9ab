import { ConfigError } from './errors.js';

// How old a reading of each type may be before it counts as stale: the `--max-age` rules
// (`weather=180,power=90,camera.*=300,*=600`). Shared by the daemon (which judges), the
// CLI and the console (which show the daemon's judgement). Pure.

/** One rule: a type name or a glob (`*` matches any run of characters), and its limit in seconds (null: never stale). */
export interface MaxAgeRule {
  readonly pattern: string;
  readonly seconds: number | null;
}

/** The rules of a daemon, most specific first (see maxAgeOf). */
export type MaxAgeRules = readonly MaxAgeRule[];

/** Types the daemon records itself (`meridian.stale`, `meridian.fresh`): never judged, whatever the rules say. */
export const DAEMON_TYPE_PREFIX = 'meridian.';

const NO_LIMIT = new Set(['none', 'off']);
const SECONDS = /^(\d+(\.\d*)?|\.\d+)$/;

/**
 * Parse a `--max-age` value: comma-separated `PATTERN=SECONDS` items, SECONDS a positive
 * number or `none`; a bare number is the default (`*`). Throws ConfigError naming `option`.
 */
export function parseMaxAge(spec: string, option: string): MaxAgeRules {
  const expected = 'PATTERN=SECONDS items separated by commas (weather=180,power=90,*=600), or seconds for every type';
  const items = spec.split(',').map((item) => item.trim());
  if (spec.trim() === '' || items.some((item) => item === '')) throw new ConfigError(option, expected, spec);
  const rules: MaxAgeRule[] = [];
  for (const item of items) {
    const at = item.lastIndexOf('=');
    const pattern = at === -1 ? '*' : item.slice(0, at).trim();
    const value = at === -1 ? item : item.slice(at + 1).trim();
    if (pattern === '') throw new ConfigError(option, `${expected}; an item has no pattern`, spec);
    const seconds = parseSeconds(value);
    if (seconds === undefined) {
      throw new ConfigError(option, `${expected}; the seconds of ${JSON.stringify(pattern)} must be a positive number or none`, spec);
    }
    if (rules.some((r) => r.pattern === pattern)) {
      throw new ConfigError(option, `${expected}; ${JSON.stringify(pattern)} is given twice`, spec);
    }
    rules.push({ pattern, seconds });
  }
  return Object.freeze(rules.sort(bySpecificity));
}

/** Rules from their wire form, `{"weather": 180, "*": 600, "debug.*": null}` (GET /status `max_age`). */
export function rulesFromWire(wire: Readonly<Record<string, number | null>> | undefined): MaxAgeRules {
  const rules = Object.entries(wire ?? {})
    .filter(([, s]) => s === null || (typeof s === 'number' && s > 0 && Number.isFinite(s)))
    .map(([pattern, seconds]) => ({ pattern, seconds }));
  return Object.freeze(rules.sort(bySpecificity));
}

/** The wire form of rules (most specific first). */
export function rulesToWire(rules: MaxAgeRules): Record<string, number | null> {
  return Object.fromEntries(rules.map((r) => [r.pattern, r.seconds]));
}

/**
 * The limit for `type` in seconds, or undefined when nothing limits it: the exact name's rule,
 * else the matching glob with the most literal characters, else `*`. Types starting with
 * `meridian.` are never limited.
 */
export function maxAgeOf(rules: MaxAgeRules, type: string): number | undefined {
  return ruleOf(rules, type) ?? undefined;
}

/**
 * The limit the rules give `type` (as maxAgeOf), null when a rule says `none` (never stale,
 * nothing learned), undefined when no rule matches (the daemon may learn one: docs/configuration.md#max-age).
 */
export function ruleOf(rules: MaxAgeRules, type: string): number | null | undefined {
  if (type.startsWith(DAEMON_TYPE_PREFIX)) return null;
  for (const rule of rules) {
    if (rule.pattern === type || (rule.pattern.includes('*') && globMatches(rule.pattern, type))) return rule.seconds;
  }
  return undefined;
}

/**
 * The maximum age (seconds) a reading carries for itself: its envelope's `meta.max_age_s`,
 * set from the event's `max_age_s` (docs/http-api.md). It overrides the rules for that reading
 * only; undefined when absent, null or not a positive number, and for `meridian.` types.
 */
export function readingMaxAge(envelope: { type: string; meta?: unknown }): number | undefined {
  if (envelope.type.startsWith(DAEMON_TYPE_PREFIX)) return undefined;
  const meta = envelope.meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const seconds = (meta as Record<string, unknown>).max_age_s;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/** The types the rules name exactly (no `*`) with a limit: readings the daemon expects to see. */
export function expectedTypes(rules: MaxAgeRules): string[] {
  return rules.filter((r) => !r.pattern.includes('*') && r.seconds !== null && !r.pattern.startsWith(DAEMON_TYPE_PREFIX))
    .map((r) => r.pattern);
}

/** `--max-age` as the CLI takes it for one check: seconds, as ms (a positive number). */
export function parseSecondsOption(text: string, option: string): number {
  const seconds = parseSeconds(text.trim());
  if (seconds === undefined || seconds === null) throw new ConfigError(option, 'a number of seconds of at least 0.001 (such as 60 or 0.5)', text);
  return Math.round(seconds * 1000);
}

function parseSeconds(value: string): number | null | undefined {
  if (NO_LIMIT.has(value.toLowerCase())) return null;
  if (!SECONDS.test(value)) return undefined;
  const seconds = Number(value);
  return seconds >= 0.001 && Number.isFinite(seconds) ? seconds : undefined;
}

/** Exact names first (by name), then globs by literal characters (more first), then by pattern: an order that does not depend on how they were given. */
function bySpecificity(a: MaxAgeRule, b: MaxAgeRule): number {
  const ga = a.pattern.includes('*');
  const gb = b.pattern.includes('*');
  if (ga !== gb) return ga ? 1 : -1;
  if (!ga) return a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0;
  const la = a.pattern.replaceAll('*', '').length;
  const lb = b.pattern.replaceAll('*', '').length;
  if (la !== lb) return lb - la;
  return a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0;
}

/** Whether `type` matches `pattern`, where `*` stands for any run of characters (none included). */
export function globMatches(pattern: string, type: string): boolean {
  const parts = pattern.split('*');
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!type.startsWith(first) || type.length < first.length + last.length || !type.endsWith(last)) return false;
  let at = first.length;
  const end = type.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = type.indexOf(middle, at);
    if (found === -1 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

/** Whether a reading `ageMs` old (undefined: none, or its ts unreadable) is past `maxAgeS` seconds (undefined: no limit). */
export function isPastLimit(ageMs: number | undefined, maxAgeS: number | undefined): boolean {
  return maxAgeS !== undefined && (ageMs === undefined || ageMs > maxAgeS * 1000);
}

/** Rules as `--max-age` takes them, most specific first: `weather=180,camera.*=none,*=600`. */
export function formatMaxAge(rules: MaxAgeRules): string {
  return rules.map((r) => `${r.pattern}=${r.seconds ?? 'none'}`).join(',');
}

/** Age in ms at `now` of a reading stamped `ts` (0 when it is ahead of the clock), undefined when unreadable. */
export function ageAt(ts: string, now: number): number | undefined {
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? undefined : Math.max(0, now - ms);
}

/**
 * A limit as the CLI and the console show it: "90s", "12.5s (learned)", "30s (reading)" (the
 * reading's own max_age_s), "30s (--max-age)" (the command's own); a daemon rule has no mark.
 */
export function limitText(limitMs: number, from: string | undefined): string {
  const seconds = `${Number((limitMs / 1000).toFixed(3))}s`;
  return from === undefined || from === 'rule' ? seconds : `${seconds} (${from})`;
}
