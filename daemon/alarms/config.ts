import { tablesOf, type ConfigTable } from '../../lib/config-file.js';
import { ConfigError } from '../../lib/errors.js';
import { ALARM_SEVERITIES, type AlarmSeverity } from '../../lib/wire.js';
import { MAX_DURATION_MS, parseDuration } from '../rules/duration.js';
import { compileCondition, type Condition } from './expression.js';

// `[[alarm]]` tables of the config file, checked at start (docs/alarms.md "Rules"): a bad one
// stops the daemon with the key's path (`the config file: alarm 2: severity`).


/** One level of an alarm: a severity and its condition, with hysteresis (`clear`). */
export interface AlarmLevel {
  severity: AlarmSeverity;
  when: Condition;
  /** Undefined: cleared once `when` no longer holds. */
  clear: Condition | undefined;
}

/** One configured alarm. */
export interface AlarmSpec {
  id: string;
  /** One level, or several (`[[alarm.level]]`): the worst active one is the alarm's severity. */
  levels: AlarmLevel[];
  /** Debounce: `when` must hold this long before the alarm is raised (0: at once). */
  forMs: number;
  /** Keep the worst severity seen, and the alarm, until acknowledged (`rtn_unack`). */
  latch: boolean;
  /** Unacknowledged this long after it was raised: one `meridian.escalation` event. */
  escalateAfterMs: number | undefined;
  message: string;
}

const ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const KEYS = ['id', 'severity', 'when', 'clear', 'for', 'latch', 'escalate_after', 'message', 'level'];
const LEVEL_KEYS = ['severity', 'when', 'clear'];

/** The alarms of the config file; `notifying`: whether any [[notify]] is configured (escalate_after needs one). */
export function resolveAlarms(doc: ConfigTable, where: string, notifying: boolean): AlarmSpec[] {
  const seen = new Set<string>();
  return tablesOf(doc, 'alarm', where).map((t, i) => {
    const spec = alarmOf(t, `${where}: alarm ${i + 1}`, notifying);
    if (seen.has(spec.id)) throw new ConfigError(`${where}: alarm ${i + 1}: id`, 'unique across alarms', spec.id);
    seen.add(spec.id);
    return spec;
  });
}

function alarmOf(t: ConfigTable, where: string, notifying: boolean): AlarmSpec {
  const unknown = Object.keys(t).find((k) => !KEYS.includes(k));
  if (unknown) throw new ConfigError(`${where}: ${unknown}`, `a known key of an [[alarm]] (${KEYS.join(', ')})`, unknown);
  const id = t.id;
  if (typeof id !== 'string' || !ID.test(id)) throw new ConfigError(`${where}: id`, '1-64 of a-z, 0-9, ".", "_", "-", starting with a letter or digit', id ?? '(missing)');
  const named = `${where} (${id})`;
  let levels: AlarmLevel[];
  if (t.level !== undefined) {
    const given = ['severity', 'when', 'clear'].find((k) => t[k] !== undefined);
    if (given) throw new ConfigError(`${named}: ${given}`, 'absent when [[alarm.level]] tables give the levels', t[given]);
    levels = tablesOf(t, 'level', named).map((l, i) => levelOf(l, `${named}: level ${i + 1}`));
    if (levels.length === 0) throw new ConfigError(`${named}: level`, 'at least one [[alarm.level]]', []);
    const severities = new Set(levels.map((l) => l.severity));
    if (severities.size !== levels.length) throw new ConfigError(`${named}: level`, 'levels of different severities', levels.map((l) => l.severity));
  } else {
    const { id: _id, for: _for, latch: _latch, escalate_after: _e, message: _m, ...level } = t;
    levels = [levelOf(level, named)];
  }
  const escalateAfterMs = t.escalate_after === undefined ? undefined : durationMs(t.escalate_after, `${named}: escalate_after`, 1000);
  if (escalateAfterMs !== undefined && !notifying) {
    throw new ConfigError(`${named}: escalate_after`, 'given only with a [[notify]] table to send escalations to', t.escalate_after);
  }
  const latch = t.latch ?? false;
  if (typeof latch !== 'boolean') throw new ConfigError(`${named}: latch`, 'true or false', latch);
  // the default, `<id>: <when>`, is as long as the expression (up to 4096 characters): never refused
  const message = t.message ?? `${id}: ${levels[0]!.when.text}`;
  if (typeof message !== 'string' || (t.message !== undefined && message.length > 256)) {
    throw new ConfigError(`${named}: message`, 'a string of at most 256 characters', message);
  }
  return { id, levels, forMs: t.for === undefined ? 0 : durationMs(t.for, `${named}: for`, 0), latch, escalateAfterMs, message };
}

function levelOf(t: ConfigTable, where: string): AlarmLevel {
  const unknown = Object.keys(t).find((k) => !LEVEL_KEYS.includes(k));
  if (unknown) throw new ConfigError(`${where}: ${unknown}`, `a known key of an alarm level (${LEVEL_KEYS.join(', ')})`, unknown);
  const severity = t.severity;
  if (typeof severity !== 'string' || !(ALARM_SEVERITIES as readonly string[]).includes(severity)) {
    throw new ConfigError(`${where}: severity`, '"warning", "serious" or "critical"', severity ?? '(missing)');
  }
  if (typeof t.when !== 'string' || t.when.trim() === '') throw new ConfigError(`${where}: when`, 'an expression (a string)', t.when ?? '(missing)');
  if (t.clear !== undefined && (typeof t.clear !== 'string' || t.clear.trim() === '')) throw new ConfigError(`${where}: clear`, 'an expression (a string)', t.clear);
  const when = compileCondition(t.when, `${where}: when`);
  const clear = t.clear === undefined ? undefined : compileCondition(t.clear, `${where}: clear`);
  return { severity: severity as AlarmSeverity, when, clear };
}

/** A span of time of the config file (the rule language's: "90s", "15m", "1h30m", or seconds; at most 7 days), at least `minMs`. */
export function durationMs(value: unknown, where: string, minMs: number): number {
  const ms = parseDuration(value, where);
  // the whole range in one message, the upper bound parseDuration's own
  if (ms < minMs) throw new ConfigError(where, `a span of time from ${minMs / 1000}s to ${MAX_DURATION_MS / 86_400_000} days`, value);
  return ms;
}
