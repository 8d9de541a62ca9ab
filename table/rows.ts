import type { Envelope } from '../lib/wire.js';
import { formatAge, summarizeData } from './format.js';

// The table's rows from a snapshot of the current view and a clock: ages, staleness,
// change highlights, filtering and sorting. Pure; the console and `telemetry current` only
// lay out and draw the result.

/** The orders `s` cycles through. */
export type SortKey = 'type' | 'age' | 'seq';
export const SORT_KEYS: readonly SortKey[] = ['type', 'age', 'seq'];

/** The latest envelope of every type, as `/current` answers it. */
export type Snapshot = Readonly<Record<string, Envelope>>;

/** One line of the table, ready to be laid out. */
export interface Row {
  type: string;
  envelope: Envelope;
  ageMs: number;
  /** "4s", or "2m05s STALE" once stale. */
  age: string;
  seq: number;
  /** `meta.run_id`, or "-" for a site reading. */
  runId: string;
  summary: string;
  stale: boolean;
  /** The reading changed within the highlight time. */
  changed: boolean;
}

/** What decides the rows besides the snapshot. */
export interface RowOptions {
  /** The daemon's clock now (epoch ms). */
  now: number;
  staleMs: number;
  flashMs: number;
  /** When each type's reading last changed (see trackChanges). */
  changedAt: ReadonlyMap<string, number>;
  filter: string;
  sort: SortKey;
}

/** Age in ms of an envelope at `now` (0 when its ts is ahead of the clock or unreadable). */
export function ageOf(envelope: Envelope, now: number): number {
  const ts = Date.parse(envelope.ts);
  return Number.isNaN(ts) ? 0 : Math.max(0, now - ts);
}

/** A reading is stale once it is older than `staleMs`. */
export function isStale(ageMs: number, staleMs: number): boolean {
  return ageMs > staleMs;
}

/** The run id an envelope was recorded under, or "-". */
export function runIdOf(envelope: Envelope): string {
  const id = envelope.meta?.run_id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : '-';
}

/** Case-insensitive substring match of a type against the filter ("" matches all). */
export function matchesFilter(type: string, filter: string): boolean {
  return type.toLowerCase().includes(filter.toLowerCase());
}

function byType(a: Row, b: Row): number {
  const la = a.type.toLowerCase();
  const lb = b.type.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a.type < b.type ? -1 : a.type > b.type ? 1 : 0;
}

/** Rows in an order: by type (A-Z), by age (newest first) or by seq (highest first); ties by type. */
export function sortRows(rows: readonly Row[], key: SortKey): Row[] {
  // age order is recording order: compare the ts themselves (ISO UTC, so as text), not the
  // ages, which are clamped at 0 for readings newer than the estimated daemon clock (its Date
  // header has whole seconds) and would tie
  const order = (a: Row, b: Row): number =>
    key === 'age' ? (a.envelope.ts < b.envelope.ts ? 1 : a.envelope.ts > b.envelope.ts ? -1 : 0) : key === 'seq' ? b.seq - a.seq : 0;
  return [...rows].sort((a, b) => order(a, b) || byType(a, b));
}

/** The sort order after `key` (type -> age -> seq -> type). */
export function nextSort(key: SortKey): SortKey {
  return SORT_KEYS[(SORT_KEYS.indexOf(key) + 1) % SORT_KEYS.length]!;
}

/** One row for one envelope at `options.now`. */
export function toRow(envelope: Envelope, options: Omit<RowOptions, 'filter' | 'sort'>): Row {
  const ageMs = ageOf(envelope, options.now);
  const stale = isStale(ageMs, options.staleMs);
  const changedAt = options.changedAt.get(envelope.type);
  return {
    type: envelope.type, envelope, ageMs, seq: envelope.seq, runId: runIdOf(envelope),
    age: stale ? `${formatAge(ageMs)} STALE` : formatAge(ageMs),
    summary: summarizeData(envelope.data), stale,
    changed: changedAt !== undefined && options.now - changedAt < options.flashMs,
  };
}

/** The table: the snapshot's envelopes filtered by type and sorted. */
export function buildRows(snapshot: Snapshot, options: RowOptions): Row[] {
  const rows = Object.values(snapshot)
    .filter((e) => matchesFilter(e.type, options.filter))
    .map((e) => toRow(e, options));
  return sortRows(rows, options.sort);
}

/**
 * When each type last changed: types whose seq or ts differ from `previous` get `now`, the
 * rest keep their time, vanished types are dropped. The first snapshot flags nothing.
 */
export function trackChanges(previous: Snapshot | undefined, next: Snapshot, now: number,
  changedAt: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [type, envelope] of Object.entries(next)) {
    const before = previous?.[type];
    const changed = previous !== undefined && (before === undefined || before.seq !== envelope.seq || before.ts !== envelope.ts);
    const at = changed ? now : changedAt.get(type);
    if (at !== undefined) out.set(type, at);
  }
  return out;
}
