import fs from 'node:fs';
import path from 'node:path';
import type { AlarmSeverity, AlarmState, JsonValue } from '../../lib/wire.js';
import { formatTs } from '../../lib/time.js';
import { statePaths, writeJsonAtomic } from '../storage/state-files.js';
import { SEVERITIES } from './config.js';
import type { AlarmRecord } from './machine.js';

// `.meridian/alarms.json`: every alarm's state, written whole (a temporary file synced and
// renamed) before the transition's event is recorded, so a crash (kill -9, power) leaves the
// state of before or of after, and a restart never records a transition twice. Times are
// ts strings. A file that cannot be read is set aside (`alarms.json.damaged-<ms>`) and every
// alarm starts normal: those whose condition holds are raised again (docs/alarms.md).

/** The path of the alarm state file of a site directory. */
export function alarmStateFile(siteDir: string): string {
  return path.join(statePaths(siteDir).dir, 'alarms.json');
}

const STATES: readonly AlarmState[] = ['normal', 'unack', 'acked', 'rtn_unack', 'shelved'];
const TIMES = ['since', 'raised_at', 'acked_at', 'shelved_until', 'escalated_at'] as const;

/** Write the records (atomically). */
export function writeAlarmState(file: string, records: ReadonlyMap<string, AlarmRecord>): void {
  const alarms: Record<string, unknown> = {};
  for (const [id, r] of records) {
    const times = Object.fromEntries(TIMES.map((k) => [k, r[k] === null ? null : formatTs(r[k])]));
    alarms[id] = { ...r, ...times };
  }
  writeJsonAtomic(file, { version: 1, alarms });
}

/** The records of the file (none when it does not exist); a damaged file is set aside and reported through `warn`. */
export function readAlarmState(file: string, warn: (message: string) => void, now: number): Map<string, AlarmRecord> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    warn(`alarm state ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); every alarm starts normal`);
    return new Map();
  }
  const records = parse(text);
  if (records) return records;
  const aside = `${file}.damaged-${now}`;
  try {
    fs.renameSync(file, aside);
  } catch { /* reported below without the new name */ }
  warn(`alarm state ${file} is damaged (set aside as ${path.basename(aside)}); every alarm starts normal and is raised again if its condition holds`);
  return new Map();
}

function parse(text: string): Map<string, AlarmRecord> | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  const alarms = (doc as { alarms?: unknown } | null)?.alarms;
  if (alarms === null || typeof alarms !== 'object' || Array.isArray(alarms)) return undefined;
  const out = new Map<string, AlarmRecord>();
  for (const [id, raw] of Object.entries(alarms as Record<string, unknown>)) {
    const record = recordOf(raw);
    if (!record) return undefined;
    out.set(id, record);
  }
  return out;
}

function recordOf(raw: unknown): AlarmRecord | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const isSeverity = (s: unknown): s is AlarmSeverity => typeof s === 'string' && (SEVERITIES as readonly string[]).includes(s);
  if (!STATES.includes(r.state as AlarmState) || !isSeverity(r.severity) || typeof r.active !== 'boolean') return undefined;
  if (!Array.isArray(r.raised) || !r.raised.every(isSeverity)) return undefined;
  const times: Record<string, number | null> = {};
  for (const k of TIMES) {
    const v = r[k];
    const ms = typeof v === 'string' ? Date.parse(v) : NaN;
    if (v !== null && Number.isNaN(ms)) return undefined;
    times[k] = v === null ? null : ms;
  }
  if (times.since === null || (r.state === 'shelved') !== (times.shelved_until !== null)) return undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    state: r.state as AlarmState, severity: r.severity, active: r.active, since: times.since!, raised_at: times.raised_at!,
    value: (r.value ?? null) as JsonValue, acked_by: text(r.acked_by), acked_at: times.acked_at!, shelved_until: times.shelved_until!,
    escalated_at: times.escalated_at!, unknown: text(r.unknown), raised: r.raised,
  };
}
