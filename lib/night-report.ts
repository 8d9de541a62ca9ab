// The night report as the daemon answers it (GET /reports/night/{day}, docs/reports.md):
// one wire shape for the daemon that computes it and the CLI that prints it.

/** One stretch of the night with no event recorded at all (the daemon down or restarting, or nothing posting). */
export interface NightGap {
  from: string;
  to: string;
  seconds: number;
}

/** One run that recorded events in the night. */
export interface NightRun {
  run_id: string;
  first: string;
  last: string;
  events: number;
}

/** Seconds of the night by safety verdict, from `meridian.safety` events. */
export interface NightSafety {
  /** Whether any verdict was recorded (in the night or the day before it). */
  recorded: boolean;
  /** The verdict in force when the span began (the last one of the day before it), or null. */
  at_start: { safe: boolean; reasons: string[] } | null;
  safe_s: number;
  unsafe_s: number;
  /** No verdict known: before the first, and inside gaps. Not safe (Fail-safe). */
  unknown_s: number;
  /** Unsafe seconds per reason (a stretch with two reasons counts for both), most first. */
  reasons: { reason: string; seconds: number }[];
  /** The verdict changes in the night, in record order: the first 10,000. */
  changes: { ts: string; safe: boolean; reasons: string[] }[];
  /** How many there were. */
  change_count: number;
}

/** Seconds one type was stale in the night (`meridian.stale` to `meridian.fresh`). */
export interface NightStale {
  type: string;
  seconds: number;
  /** `meridian.stale` events of the type in the night. */
  times: number;
}

/** One alarm transition (`meridian.alarm`). */
export interface NightAlarm {
  ts: string;
  id: string;
  from: string;
  to: string;
  severity: string;
}

/** min/mean/max of one numeric weather field (min and max as recorded, spelling kept). */
export interface NightField {
  count: number;
  min: number;
  /** null when the mean lies past a double's range (docs/reports.md). */
  mean: number | null;
  max: number;
  /** The field's mean per slice of the night: [slice start, mean], slices with readings only (null: past a double's range). */
  series: [string, number | null][];
}

/** Seconds spent in one POCS state. */
export interface NightState {
  state: string;
  seconds: number;
  /** Times the state was entered in the night. */
  entered: number;
}

/** The whole report (GET /reports/night/{YYYYMMDD} or ?run=ID). */
export interface NightReport {
  night: string | null;
  run_id: string | null;
  zone: string;
  from: string;
  to: string;
  /** false while the night is still going on (totals run up to `until`). */
  complete: boolean;
  until: string;
  seconds: number;
  events: number;
  first_event: string | null;
  last_event: string | null;
  runs: NightRun[];
  safety: NightSafety;
  stale: NightStale[];
  alarms: { count: number; listed: NightAlarm[] };
  gaps: { threshold_s: number; seconds: number; list: NightGap[]; daemon_started: string | null };
  counts: Record<string, number>;
  weather: { type: string; fields: Record<string, NightField> };
  states: NightState[];
  damaged: { file: string; reason: string }[];
}
