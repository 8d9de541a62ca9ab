// The wire types: what travels over HTTP and lies in the files. Shared by daemon,
// client and console. Keys stay snake_case as on the wire.

/** What an event type never contains: C0 controls, DEL and C1 controls. */
/** The longest shelf of an alarm (a week: a forgotten shelf ends by itself); the daemon, the HTTP API and the CLI take their bound and message from it. */
export const MAX_SHELF_MS = 7 * 86_400_000;

export const TYPE_FORBIDDEN_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** One recorded event, as answered by POST /event and stored as one NDJSON line. */
export interface Envelope {
  seq: number;
  ts: string;
  type: string;
  data: JsonValue;
  meta: JsonObject;
}

/** The body of POST /event. */
export interface EventRequest {
  type: string;
  data: JsonValue;
  make_current?: boolean;
  /** false: update the current view and use a seq, but write no line (an ephemeral reading). */
  store_permanently?: boolean;
  /** The reading's own time, ISO-8601 with Z or an offset (null: the daemon's clock). */
  ts?: string | null;
  /**
   * This reading's maximum age in seconds (positive), overriding the daemon's `--max-age` for
   * it alone; kept as `meta.max_age_s` of its envelope (null: the configured age).
   */
  max_age_s?: number | null;
  meta?: JsonObject;
}

/** The answer to POST /events when every event was recorded: seqs first_seq..last_seq in batch order. */
export interface BatchAnswer {
  recorded: number;
  first_seq: number;
  last_seq: number;
  /** The run the events went to, or null for the site file. */
  run_id: string | null;
}

/** One refused event of a batch: its 0-based index (and NDJSON line), its error code and detail. */
export interface BatchFailure {
  index: number;
  line?: number;
  code: string;
  detail: string;
}

/** The 422 answer to POST /events?partial=true when some events were invalid (code BATCH_PARTLY_RECORDED). */
export interface BatchPartlyRecordedAnswer extends BatchAnswer, ErrorAnswer {
  /** The index of each recorded event; the k-th got seq first_seq + k. */
  recorded_indexes: number[];
  failures: BatchFailure[];
}

/** The body of POST /run/start (every field optional; null means not given). */
export interface RunStartRequest {
  run_dir?: string | null;
  run_id?: string | null;
  meta?: JsonObject | null;
}

/** The record of a run, as answered by GET /run and POST /run/start. */
export interface RunRecord {
  run_dir: string;
  run_id: string;
  meta: JsonObject;
  started_at: string;
}

/** The answer to POST /run/stop: the record of the run that was active. */
export interface StoppedRunRecord extends RunRecord {
  stopped_at: string;
}

/** GET /health. */
export interface HealthAnswer {
  ok: true;
}

/** GET /ready. */
export interface ReadyAnswer {
  ready: true;
  run_active: boolean;
  version: string;
}

/** GET /status: who is answering, since when, and what it holds. */
/** Log lines dropped since start because they could not be written (GET /status). */
export interface LogDropped {
  lines: number;
  /** When the first one was dropped (ts format). */
  since: string;
  /** The error code of the last failed write (`ENOSPC`, `EPIPE`, ...). */
  code: string;
}

/** A recorded file found damaged, and why (GET /status, GET /history). */
export interface DamagedFile {
  file: string;
  reason: string;
}

/**
 * Types only the daemon records, each with the docs page that says why: a caller's event of
 * one is refused (422 INVALID_BODY). A forged `meridian.safety` reading would be taken for the
 * verdict after a restart (safe, its `safe_for` already served); a forged `meridian.escalation`
 * would be sent to every [[notify]] webhook (someone woken for nothing), a forged
 * `meridian.alarm` would stand in the alarm log as a transition that never happened, a forged
 * `meridian.stale`/`meridian.fresh` in the files (and the night report) as a gap that never was.
 */
export const DAEMON_ONLY_TYPES: ReadonlyMap<string, string> = new Map([
  ['meridian.safety', 'docs/safety.md'], ['meridian.alarm', 'docs/alarms.md'], ['meridian.escalation', 'docs/alarms.md'],
  ['meridian.stale', 'docs/http-api.md'], ['meridian.fresh', 'docs/http-api.md'],
]);

/** One input of the safety verdict (GET /safety `inputs`): its reading's age, whether stale, its `data`. */
export interface SafetyInput {
  /** Seconds since the reading (null without one). */
  age_s: number | null;
  /** Stale or missing. */
  stale: boolean;
  /** The reading's `data` (null without a reading). */
  value: JsonValue;
}

/** GET /safety: the safety verdict (docs/safety.md). */
export interface SafetyAnswer {
  safe: boolean;
  /** When `safe` last changed (ts format). */
  since: string;
  /** Why unsafe (empty when safe). */
  reasons: string[];
  /** Every type the verdict reads, by type. */
  inputs: Record<string, SafetyInput>;
  /** false: the daemon has no [safety] section (always unsafe). */
  configured: boolean;
}

export interface StatusAnswer {
  version: string;
  /** The daemon's process id. */
  pid: number;
  /** When the daemon started listening (ts format). */
  started_at: string;
  /** The address it is bound to, `host:port`. */
  address: string;
  /** The site directory it records into (absolute); absent from earlier versions. */
  site_dir?: string;
  /** The active run's id, or null outside a run. */
  run_id: string | null;
  /** How many event types the current view holds. */
  types: number;
  /** How many types are stale now (missing expected ones included). */
  stale: number;
  /** The age limits (`--max-age`), most specific first: pattern -> seconds (null: never stale). */
  max_age: Record<string, number | null>;
  /** The limits learned from each type's cadence that are in force, type -> seconds (daemons before 0.2 send none). */
  learned?: Record<string, number>;
  /**
   * The run that was active but could not resume at start-up (its run_dir is not usable):
   * events go to the site file until it is stopped. Null when there is none.
   */
  suspended_run?: { run_id: string; run_dir: string; reason: string } | null;
  /**
   * Since when the disk is full (writes answered 503 DISK_FULL until one fits again; reading
   * goes on), the file of the first failed write and `ENOSPC` or `EDQUOT`. Null while writes
   * fit; absent from earlier versions.
   */
  disk_full?: { since: string; file: string; code: string } | null;
  /** Recorded files found damaged since the start (only when there are some); what they still hold is served. */
  damaged?: DamagedFile[];
  /** Log lines the daemon could not write (its stderr or log file on a full disk, a closed pipe): only when there are some. */
  log_dropped?: LogDropped;
  /** Only when the daemon keeps rollups: ok, rebuilding, unwritten (kept in memory) or failed; since when and why; the last rebuild since start and its cause. */
  rollups?: { state: 'ok' | 'rebuilding' | 'unwritten' | 'failed'; since: string | null; reason: string | null; last_rebuild: { at: string; reason: string } | null };
  /** Events recorded since the daemon started: written to a file, and ephemeral (store_permanently false). */
  recorded: { permanent: number; ephemeral: number };
  /** Whether requests need a token. */
  authenticated: boolean;
  /** Present only when the daemon listens beyond loopback without a token (--allow-unauthenticated). */
  warning?: string;
  /** Each configured forwarding sink (docs/forwarding.md); empty when none is configured. */
  forward: SinkStatus[];
}

/** One forwarding sink in GET /status. */
export interface SinkStatus {
  name: string;
  kind: 'mqtt' | 'postgres' | 'http';
  /** The sink's URL with any password replaced by `***`. */
  url: string;
  /** ok; retrying (deliveries fail, for less than its failing_after); failing; skipped (it delivers, but passed over what it could not read: `skipped` says what). */
  state: 'ok' | 'retrying' | 'failing' | 'skipped';
  /** Events recorded but not yet acknowledged by the sink. */
  lag_events: number;
  /** Age of the oldest event not yet acknowledged (0 when caught up). */
  lag_seconds: number;
  /** When the sink last acknowledged a batch (ts format), or null. */
  last_success: string | null;
  /** Failed deliveries retried since start. */
  retries: number;
  /** Records the peer refused for good: the lines of the sink's dead-letter file. */
  dead_letters: number;
  /** The reason of the last failed delivery, or null. */
  last_error: string | null;
  /** Events the sink acknowledged since the daemon started (dead letters not counted). */
  delivered: number;
  /** Ephemeral events the sink acknowledged since start (sent live, best-effort). */
  ephemeral_sent: number;
  /** Ephemeral events dropped since start: the sink was down, its queue was full, or their one attempt failed. */
  ephemeral_dropped: number;
  /**
   * Only once seen (an MQTT sink with clash_check): another daemon forwarding as this unit, one
   * sentence, with when it was last seen.
   */
  clash?: string;
  /** What the sink could not read and passed over (a file gone, a damaged file, lines that are no envelopes), one sentence each, oldest first; kept in its cursor. */
  skipped: string[];
}

/**
 * How fresh a type's reading is, judged on the daemon's clock: its age, the limit that
 * applies to it (`--max-age`), and whether it is past that limit. A type the limits name
 * that has no reading at all has `age_s` null and is stale.
 */
export interface Freshness {
  /** Seconds since the reading's `ts` (0 for a ts ahead of the daemon's clock); null: no reading. */
  age_s: number | null;
  /** The limit for the type in seconds; null: the type is never stale. */
  max_age_s: number | null;
  /** Where the limit comes from (Meridian 0.x daemons before learned limits send none); null when there is none. */
  max_age_from?: MaxAgeFrom | null;
  stale: boolean;
}

/** Where a type's limit comes from: a `--max-age` rule, the reading's own `max_age_s`, or learned from its cadence. */
export type MaxAgeFrom = 'rule' | 'reading' | 'learned';

/** GET /current: the readings, and (with `?freshness=true`) how fresh each is. */
export interface CurrentAnswer {
  current: Record<string, Envelope>;
  /** Every type of `current`, and the types the limits expect that have no reading. */
  freshness?: Record<string, Freshness>;
}

/** POST /shutdown. */
export interface ShutdownAnswer {
  shutting_down: true;
}

/** Every error answer. */
export interface ErrorAnswer {
  detail: string;
  code: string;
}

/** An alarm's severity, from least to worst. */
export type AlarmSeverity = 'warning' | 'serious' | 'critical';

/** The severities, from least to worst (their order ranks them): the one list the daemon, the client and the CLI check against. */
export const ALARM_SEVERITIES: readonly AlarmSeverity[] = ['warning', 'serious', 'critical'];

/** An alarm's state (ISA-18.2 words; docs/alarms.md). */
export type AlarmState = 'normal' | 'unack' | 'acked' | 'rtn_unack' | 'shelved';

/** Every state an alarm can be in. */
export const ALARM_STATES: readonly AlarmState[] = ['normal', 'unack', 'acked', 'rtn_unack', 'shelved'];

/** One alarm as GET /alarms and the stream's `alarm` frames show it. */
export interface AlarmAnswer {
  id: string;
  severity: AlarmSeverity;
  state: AlarmState;
  /** Whether its condition holds now (a shelved alarm's too). */
  active: boolean;
  /** When it entered its state (ts). */
  since: string;
  /** When it was last raised (ts), null when never. */
  raised_at: string | null;
  /** The value its condition last read (the first field it names), null when none. */
  value: JsonValue;
  message: string;
  acked_by: string | null;
  acked_at: string | null;
  shelved_until: string | null;
  escalated_at: string | null;
  /** Why its condition cannot be judged now (a stale or missing input), null when it can. */
  unknown: string | null;
}

/** The answer to GET /alarms: every configured alarm, worst severity first, then by id. */
export interface AlarmsAnswer {
  alarms: AlarmAnswer[];
}

/** One field's summary in one rollup bucket (GET /history?step=): first/last/min/max as recorded. */
export interface RollupField {
  first: number;
  last: number;
  min: number;
  max: number;
  count: number;
  mean: number;
  /** The time-weighted mean over the time a fresh reading covered; null when none did. */
  twmean: number | null;
  /** Seconds of the bucket no fresh reading covered. */
  gap_s: number;
}

/** One rollup bucket: [start, end) and each field asked for (null: no reading of it in the bucket). */
export interface RollupBucket {
  start: string;
  end: string;
  fields: Record<string, RollupField | null>;
}

/** GET /history?type=T&step=...: one type's rollup buckets (docs/rollups.md). */
export interface RollupAnswer {
  type: string;
  step: '1m' | '15m' | '1h' | 'night';
  from: string;
  to: string;
  fields: string[];
  buckets: RollupBucket[];
}

/** POST /rollups/rebuild. */
export interface RebuildAnswer {
  rebuilt: true;
  /** Readings left out of the rollups because their ts was before their type's last one. */
  late: number;
}
