import { ageAt } from '../lib/max-age.js';
import type { Envelope } from '../lib/wire.js';
import { formatAge } from './format.js';
import { sortInPlace, type SortOrder } from './row-order.js';

export { nextSort, SORT_KEYS, type SortKey, type SortOrder } from './row-order.js';

// The table's rows from a snapshot of the current view and the daemon's judgement of each
// type's age: staleness (stale and missing readings pinned on top), whose value changed
// since the last frame drawn, filtering and sorting. Pure; the console and `telemetry current` only lay
// out and draw the result (the DATA summary is made only for the rows drawn).

/** The latest envelope of every type, as `/current` answers it. */
export type Snapshot = Readonly<Record<string, Envelope>>;

/** How old a type's reading is and how old it may be, in ms (undefined: no reading / no limit). */
export interface Judgement {
  ageMs: number | undefined;
  limitMs: number | undefined;
  /** Where the limit comes from (the daemon's `max_age_from`, or `--max-age` of the command); undefined when not known. */
  limitFrom?: string;
}

/** Judges one type (its envelope is undefined for an expected type without a reading). */
export type Judge = (type: string, envelope: Envelope | undefined) => Judgement;

/** How a type's value changed since the last frame drawn (a new reading with the same value is no change). */
export interface Change {
  /** The top-level data keys that changed; undefined: the value as a whole (or a new type). */
  keys: ReadonlySet<string> | undefined;
}

/** One line of the table, ready to be laid out. */
export interface Row {
  type: string;
  /** The type in lower case (the sort by type compares these first). */
  key: string;
  /** Undefined for a type the limits expect that has no reading. */
  envelope: Envelope | undefined;
  ageMs: number | undefined;
  /**
   * "4s", "2m05s STALE", or "MISSING" for an expected type without a reading: made when read
   * (only the rows drawn), not for every row each time the ages move on.
   */
  readonly age: string;
  seq: number | undefined;
  /** `meta.run_id`, or "-" for a site reading. */
  runId: string;
  stale: boolean;
  /** Its limit in ms and where it comes from (undefined: none, not known). */
  limitMs: number | undefined;
  limitFrom: string | undefined;
  /** Set when the value changed since the last frame drawn. */
  change: Change | undefined;
}

/** What decides the rows besides the snapshot. */
export interface RowOptions {
  judge: Judge;
  /** Types the limits expect that have no reading: shown as MISSING rows. */
  missing?: readonly string[];
  /** Whose value changed since the last frame drawn (see changeOf). */
  changes?: ReadonlyMap<string, Change>;
  filter: string;
  order: SortOrder;
}

/** Age in ms of an envelope at `now` (0 when its ts is ahead of the clock; undefined when unreadable). */
export function ageOf(envelope: Envelope, now: number): number | undefined {
  return ageAt(envelope.ts, now);
}

/** A reading is stale once it is older than its limit; a missing one whenever a limit applies. */
export function isStale(ageMs: number | undefined, limitMs: number | undefined): boolean {
  return limitMs !== undefined && (ageMs === undefined || ageMs > limitMs);
}

/** The run id an envelope was recorded under, or "-". */
export function runIdOf(envelope: Envelope | undefined): string {
  const id = envelope?.meta?.run_id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : '-';
}

/** Case-insensitive substring match of a type against the filter ("" matches all). */
export function matchesFilter(type: string, filter: string): boolean {
  return filter === '' || type.toLowerCase().includes(filter.toLowerCase());
}

/**
 * Rows in an order, stale ones pinned on top: by type (A-Z), by age (newest first) or by seq
 * (highest first), ties by type; `reverse` turns the order around (the pin stays).
 */
export function sortRows(rows: readonly Row[], order: SortOrder): Row[] {
  return sortInPlace([...rows], order);
}

/** Judge a row again (its age moved on): whether its staleness turned. */
export function rejudge(row: Row, judge: Judge): boolean {
  const { ageMs, limitMs, limitFrom } = judge(row.type, row.envelope);
  const stale = isStale(ageMs, limitMs);
  const changed = stale !== row.stale;
  row.ageMs = ageMs;
  row.stale = stale;
  row.limitMs = limitMs;
  row.limitFrom = limitFrom;
  return changed;
}

function ageText(hasReading: boolean, ageMs: number | undefined, stale: boolean): string {
  const age = !hasReading ? 'MISSING' : ageMs === undefined ? '?' : formatAge(ageMs);
  return stale && hasReading ? `${age} STALE` : age;
}

/** A row as toRow makes it: the age text is made when read, from the prototype (one getter, not one per row). */
class TableRow implements Row {
  constructor(
    public type: string, public key: string, public envelope: Envelope | undefined, public ageMs: number | undefined,
    public seq: number | undefined, public runId: string, public stale: boolean, public change: Change | undefined,
    public limitMs: number | undefined, public limitFrom: string | undefined,
  ) {}

  get age(): string {
    return ageText(this.envelope !== undefined, this.ageMs, this.stale);
  }
}

/** One row for one type (its envelope undefined when it has no reading). */
export function toRow(type: string, envelope: Envelope | undefined, judge: Judge, change?: Change): Row {
  const { ageMs, limitMs, limitFrom } = judge(type, envelope);
  const key = type.toLowerCase();
  return new TableRow(type, key === type ? type : key, envelope, ageMs, envelope?.seq, runIdOf(envelope), isStale(ageMs, limitMs), change,
    limitMs, limitFrom);
}

/** A kept row brought to a new reading of its type, in place. */
export function patchRow(row: Row, envelope: Envelope, judge: Judge, change: Change | undefined): void {
  const { ageMs, limitMs, limitFrom } = judge(row.type, envelope);
  row.envelope = envelope;
  row.ageMs = ageMs;
  row.seq = envelope.seq;
  row.runId = runIdOf(envelope);
  row.stale = isStale(ageMs, limitMs);
  row.limitMs = limitMs;
  row.limitFrom = limitFrom;
  row.change = change;
}

/** The table: the snapshot's envelopes and the missing expected types, filtered by type and sorted. */
export function buildRows(snapshot: Snapshot, options: RowOptions): Row[] {
  const rows: Row[] = [];
  for (const type in snapshot) {
    if (matchesFilter(type, options.filter)) rows.push(toRow(type, snapshot[type], options.judge, options.changes?.get(type)));
  }
  for (const type of options.missing ?? []) {
    if (!Object.hasOwn(snapshot, type) && matchesFilter(type, options.filter)) rows.push(toRow(type, undefined, options.judge));
  }
  return sortInPlace(rows, options.order);
}

/**
 * How the value changed from `before` (undefined: the type is new) to `after`; undefined when
 * it did not (the same reading, or a new one with the same data).
 */
export function changeOf(before: Envelope | undefined, after: Envelope): Change | undefined {
  if (before === undefined) return { keys: undefined };
  if (before === after || (before.seq === after.seq && before.ts === after.ts)) return undefined;
  return dataChange(before.data, after.data);
}

function dataChange(before: Envelope['data'], after: Envelope['data']): Change | undefined {
  if (JSON.stringify(before) === JSON.stringify(after)) return undefined;
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(before) || !isObject(after)) return { keys: undefined };
  const keys = new Set<string>();
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) keys.add(key);
  }
  return { keys };
}
