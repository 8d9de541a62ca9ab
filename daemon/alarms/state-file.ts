import fs from 'node:fs';
import path from 'node:path';
import { ALARM_SEVERITIES, ALARM_STATES, type AlarmSeverity, type AlarmState, type JsonValue } from '../../lib/wire.js';
import { formatTs } from '../../lib/time.js';
import { objectMember } from '../../lib/json-member.js';
import { statePaths, writeJsonAtomic } from '../storage/state-files.js';
import type { AlarmRecord } from './machine.js';

// `.meridian/alarms.json`: every alarm's state and the journal (the number of the last event
// and the events about to be recorded), written whole (a temporary file synced and renamed)
// before the transitions' events are recorded (daemon/alarms/journal.ts), so a crash (kill -9,
// power) neither loses nor doubles a transition or an escalation. Times are
// ts strings. A file that cannot be read is set aside (`alarms.json.damaged-<ms>`) and every
// alarm starts normal: those whose condition holds are raised again (docs/alarms.md).

/** The path of the alarm state file of a site directory. */
export function alarmStateFile(siteDir: string): string {
  return path.join(statePaths(siteDir).dir, 'alarms.json');
}

const TIMES = ['since', 'raised_at', 'acked_at', 'shelved_until', 'escalated_at'] as const;

/** One event about to be recorded: its number (meta `alarm_n` of the event), type, data and time (ms). */
export interface PendingEvent {
  n: number;
  type: string;
  data: Record<string, unknown>;
  at: number;
}

/** The journal: the number of the last event given one, the events written ahead of their recording. */
export interface AlarmJournalState {
  n: number;
  pending: PendingEvent[];
}

/** What the file holds. */
export interface SavedAlarms {
  records: Map<string, AlarmRecord>;
  journal: AlarmJournalState;
}

/** The version of the file this daemon writes and reads. */
export const ALARM_STATE_VERSION = 1;

/** A state file of another version (a newer meridian's): the daemon does not start on it (setting it aside would lose every alarm's state). */
export class AlarmStateVersionError extends Error {
  constructor(file: string, version: unknown) {
    super(`alarm state ${file} is of version ${JSON.stringify(version)}, which this daemon does not read (it reads version ${ALARM_STATE_VERSION}; written by another meridian?): ` +
      'start the meridian that wrote it, or move the file aside to start with every alarm normal');
    this.name = 'AlarmStateVersionError';
  }
}

/** Write the records and the journal (atomically). */
export function writeAlarmState(file: string, records: ReadonlyMap<string, AlarmRecord>, journal: AlarmJournalState): void {
  const alarms: Record<string, unknown> = {};
  for (const [id, r] of records) {
    const times = Object.fromEntries(TIMES.map((k) => [k, r[k] === null ? null : formatTs(r[k])]));
    alarms[id] = { ...r, ...times };
  }
  const pending = journal.pending.map((p) => ({ n: p.n, type: p.type, data: p.data, ts: formatTs(p.at) }));
  writeJsonAtomic(file, { version: ALARM_STATE_VERSION, alarms, journal: { n: journal.n, pending } });
}

const EMPTY = (): SavedAlarms => ({ records: new Map(), journal: { n: 0, pending: [] } });

/** What the file holds (nothing when it does not exist); a damaged file is set aside and reported through `warn`; one of another version throws AlarmStateVersionError. */
export function readAlarmState(file: string, warn: (message: string) => void, now: number): SavedAlarms {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY();
    warn(`alarm state ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); every alarm starts normal`);
    return EMPTY();
  }
  const saved = parse(text, file);
  if (saved) return saved;
  const aside = `${file}.damaged-${now}`;
  try {
    fs.renameSync(file, aside);
  } catch { /* reported below without the new name */ }
  warn(`alarm state ${file} is damaged (set aside as ${path.basename(aside)}); every alarm starts normal and is raised again if its condition holds`);
  return EMPTY();
}

function parse(text: string, file: string): SavedAlarms | undefined {
  const found = objectMember(text, 'alarms');
  if (!found) return undefined;
  const version = found.doc.version;
  if (version !== undefined && version !== ALARM_STATE_VERSION) throw new AlarmStateVersionError(file, version);
  const out = new Map<string, AlarmRecord>();
  for (const [id, raw] of Object.entries(found.member)) {
    const record = recordOf(raw);
    if (!record) return undefined;
    out.set(id, record);
  }
  const journal = journalOf(found.doc.journal);
  return journal ? { records: out, journal } : undefined;
}

// a file without a journal (written before there was one) has nothing pending
function journalOf(raw: unknown): AlarmJournalState | undefined {
  if (raw === undefined) return { n: 0, pending: [] };
  const j = raw as { n?: unknown; pending?: unknown } | null;
  if (j === null || typeof j !== 'object' || !Number.isSafeInteger(j.n) || !Array.isArray(j.pending)) return undefined;
  const pending: PendingEvent[] = [];
  for (const p of j.pending as { n?: unknown; type?: unknown; data?: unknown; ts?: unknown }[]) {
    const at = typeof p?.ts === 'string' ? Date.parse(p.ts) : NaN;
    if (!Number.isSafeInteger(p?.n) || typeof p.type !== 'string' || p.data === null || typeof p.data !== 'object' || Number.isNaN(at)) return undefined;
    pending.push({ n: p.n as number, type: p.type, data: p.data as Record<string, unknown>, at });
  }
  return { n: j.n as number, pending };
}

function recordOf(raw: unknown): AlarmRecord | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const isSeverity = (s: unknown): s is AlarmSeverity => typeof s === 'string' && (ALARM_SEVERITIES as readonly string[]).includes(s);
  if (!ALARM_STATES.includes(r.state as AlarmState) || !isSeverity(r.severity) || typeof r.active !== 'boolean') return undefined;
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
