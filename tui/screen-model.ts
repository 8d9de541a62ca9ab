import { expectedTypes, readingMaxAge, ruleOf, type MaxAgeRules } from '../lib/max-age.js';
import { placeAgain } from '../table/row-order.js';
import { ageOf, buildRows, changeOf, matchesFilter, patchRow, rejudge, type Change, type Judge, type Row } from '../table/rows.js';
import { daemonNow, type ConsoleState } from './console-state.js';
import type { Envelope } from '../lib/wire.js';

// What the screen shows for a state, pure: every row (stale and missing ones on top), the
// slice of rows in sight, the selection, and how many rows (and stale ones) are out of
// sight above and below. Ages and staleness by the daemon's limits (or --max-age). The
// rows are kept between frames: a row is marked when its value changed since the frame
// drawn before (the rows hold what that frame showed).

/** Rows out of sight on one side of the table. */
export interface OutOfSight {
  count: number;
  stale: number;
}

/** The table as the screen shows it. */
export interface ScreenModel {
  /** Every row after the filter, in order. */
  rows: Row[];
  /** Every row before the filter. */
  all: readonly Row[];
  /** Changes when the rows were built anew or a patched row's SEQ or RUN may need more room (the column widths are laid out again). */
  layout: number;
  /** Index of the selected row (0 when there are none). */
  selected: number;
  /** Index of the first row in sight. */
  top: number;
  /** Stale (and missing) types in the whole view, whatever the filter. */
  staleTotal: number;
  /** Types with a reading in the whole view: what `telemetry status` and /status count as `types` (missing ones count in staleTotal only). */
  total: number;
  /** Types with a reading among the rows shown (after the filter). */
  shownTypes: number;
  above: OutOfSight;
  below: OutOfSight;
}

/** What the model needs besides the state. */
export interface ModelOptions {
  /** The local clock now (epoch ms). */
  localNow: number;
  /** The local monotonic clock now (ms; absent or NaN: ages by ts alone). */
  localMono?: number;
  /** --max-age in ms: the limit of every type instead of the daemon's. */
  limitMs: number | undefined;
  /** The single-type console's type. */
  type: string | undefined;
  /** Rows the table shows at once. */
  page: number;
}

/**
 * The judge of the console: ages on the estimated daemon clock, and never less than the age
 * a reading had when it came plus the time since on the local monotonic clock `mono` (a clock
 * stepped back turns no age back: the daemon's rule); limits from the daemon: a reading's own
 * `meta.max_age_s`, else the daemon's rules, else the limit it learned (--max-age of the console wins over all).
 */
export function consoleJudge(state: ConsoleState, now: number, limitMs: number | undefined, mono = NaN): Judge {
  const limits = state.limits;
  const learned = state.learned;
  return (type, envelope) => {
    const [seconds, from] = limitOf(type, envelope, limits, learned);
    const byTs = envelope ? ageOf(envelope, now) : undefined;
    const receipt = envelope && state.receipts.get(type);
    const held = receipt && receipt.seq === envelope!.seq && receipt.ts === envelope!.ts ? receipt.ageMs + Math.floor(mono - receipt.mono) : NaN;
    const ageMs = byTs !== undefined && held > byTs ? held : byTs;
    if (limitMs !== undefined) return { ageMs, limitMs, limitFrom: '--max-age' };
    return { ageMs, limitMs: seconds === undefined ? undefined : seconds * 1000, limitFrom: from };
  };
}

/** The daemon's limit of a type's reading in seconds and its source: its own, else the rules', else the learned one. */
function limitOf(type: string, envelope: Envelope | undefined, limits: MaxAgeRules | undefined,
  learned: Readonly<Record<string, number>> | undefined): [number | undefined, string | undefined] {
  const own = envelope && readingMaxAge(envelope);
  if (own !== undefined) return [own, 'reading'];
  const rule = limits === undefined ? undefined : ruleOf(limits, type);
  if (rule !== undefined) return [rule ?? undefined, rule === null ? undefined : 'rule'];
  const seconds = envelope && learned && Object.hasOwn(learned, type) ? learned[type] : undefined;
  return seconds === undefined ? [undefined, undefined] : [seconds, 'learned'];
}

/** The model of the screen for `state` (no rows kept from an earlier call). */
export function screenModel(state: ConsoleState, o: ModelOptions): ScreenModel {
  return screenModeler()(state, o);
}

/** The rows a modeler keeps between calls, and what they were built from. */
interface Kept {
  /** A view was shown (the first view marks nothing). */
  shown: boolean;
  /** The limits, order, --max-age and type: a change of any of these builds the rows anew. */
  inputs: unknown[];
  rows: Row[];
  byType: Map<string, Row>;
  /** Rows with a reading (not MISSING). */
  readings: number;
  /** The rows marked in the last frame. */
  marked: Row[];
  /** Counts the builds and patches (ScreenModel.layout). */
  layout: number;
}

/**
 * A screenModel that keeps its sorted rows between frames. A frame that brings readings
 * (`state.fresh`) patches the rows of those readings and marks the ones whose value changed
 * against the frame before (the marks of that frame go); a frame without readings (the ages
 * moving on, a key) keeps the marks. Every row is judged again (ages move on) and the nearly
 * sorted rows sorted again: 100,000 types cost a loop, not 100,000 new rows, on each frame.
 * A type that came or went, or new limits or order, build the rows anew (marks kept).
 */
export function screenModeler(): (state: ConsoleState, o: ModelOptions) => ScreenModel {
  let kept: Kept | undefined;
  return (state, o) => {
    const judge = consoleJudge(state, daemonNow(state, o.localNow), o.limitMs, o.localMono);
    const inputs = [state.limits, state.order.key, state.order.reverse, o.limitMs, o.type];
    const same = kept !== undefined && kept.inputs.every((v, i) => v === inputs[i]);
    const patches = same ? patched(kept!, state, judge) : undefined;
    if (patches === undefined) {
      kept = built(state, o, judge, inputs, kept);
      return modelOf(state, kept.rows, o.page, kept.layout);
    }
    const k = kept!;
    if (widens(patches)) k.layout++;
    const moved = new Set(patches.keys());
    for (const row of k.rows) if (rejudge(row, judge)) moved.add(row);
    placeAgain(k.rows, moved, state.order);
    k.shown ||= state.snapshot !== undefined;
    return modelOf(state, k.rows, o.page, k.layout);
  };
}

/** The rows built anew, marked against the rows of the frame before (`previous`). */
function built(state: ConsoleState, o: ModelOptions, judge: Judge, inputs: unknown[], previous: Kept | undefined): Kept {
  let missing = state.limits === undefined || state.snapshot === undefined ? [] : expectedTypes(state.limits);
  if (o.type !== undefined) missing = missing.filter((t) => t === o.type);
  const view = state.snapshot ?? {};
  const changes = new Map<string, Change>();
  if (previous?.shown) {
    for (const type in view) {
      const before = previous.byType.get(type);
      const change = isFresh(state, type) ? changeOf(before?.envelope, view[type]!) : before?.change;
      if (change) changes.set(type, change);
    }
  }
  const rows = buildRows(view, { judge, missing, changes, filter: '', order: state.order });
  return {
    shown: state.snapshot !== undefined, inputs, rows, byType: new Map(rows.map((r) => [r.type, r])),
    readings: rows.reduce((n, r) => n + Number(r.envelope !== undefined), 0), marked: rows.filter((r) => r.change),
    layout: (previous?.layout ?? 0) + 1,
  };
}

function isFresh(state: ConsoleState, type: string): boolean {
  return state.fresh === 'view' || state.fresh.has(type);
}

/**
 * Bring the kept rows to the fresh readings of `state` in place, marking those whose value
 * changed; the rows that got another reading, or undefined when that cannot be done (a type
 * came or went: the rows are built anew). Nothing fresh: nothing changes, the marks stay.
 */
function patched(kept: Kept, state: ConsoleState, judge: Judge): Map<Row, string> | undefined {
  const patches = new Map<Row, string>();
  if (state.fresh !== 'view' && state.fresh.size === 0) return patches;
  const view = state.snapshot ?? {};
  const types = state.fresh === 'view' ? Object.keys(view) : [...state.fresh];
  let readings = kept.readings;
  for (const type of types) {
    const row = kept.byType.get(type);
    if (!row || view[type] === undefined) return undefined;
    if (row.envelope === undefined) readings++;
  }
  if (state.fresh === 'view' && readings !== types.length) return undefined;
  for (const row of kept.marked) row.change = undefined;
  kept.marked = [];
  for (const type of types) {
    const row = kept.byType.get(type)!;
    const envelope = view[type]!;
    const change = kept.shown ? changeOf(row.envelope, envelope) : undefined;
    if (row.envelope !== envelope) {
      // a poll brings every reading anew: the same one (seq and ts) takes no new place
      if (row.envelope === undefined || row.envelope.seq !== envelope.seq || row.envelope.ts !== envelope.ts) patches.set(row, cellsOf(row));
      patchRow(row, envelope, judge, change);
    } else row.change = change;
    if (change) kept.marked.push(row);
  }
  kept.readings = readings;
  return patches;
}

/** How many rows hold a reading (a MISSING row of an expected type does not). */
function readings(rows: readonly Row[]): number {
  let n = 0;
  for (const r of rows) n += Number(r.envelope !== undefined);
  return n;
}

/** The width-deciding cells of a row other than TYPE: the digits of SEQ and RUN. */
function cellsOf(row: Row): string {
  return `${String(row.seq ?? '-').length} ${row.runId}`;
}

/** A patched row whose SEQ got longer or RUN changed may need wider columns (the rest only narrow, kept until a build). */
function widens(patches: ReadonlyMap<Row, string>): boolean {
  for (const [row, before] of patches) if (cellsOf(row) !== before) return true;
  return false;
}

function modelOf(state: ConsoleState, all: Row[], page: number, layout: number): ScreenModel {
  let staleTotal = 0;
  for (const r of all) staleTotal += Number(r.stale);
  const rows = state.filter === '' ? all : all.filter((r) => matchesFilter(r.type, state.filter));
  const selected = Math.max(0, rows.findIndex((r) => r.type === state.selected));
  const top = windowTop(state.top, selected, page, rows.length);
  const count = (from: number, to: number): OutOfSight => {
    let stale = 0;
    for (let i = from; i < to; i++) stale += Number(rows[i]!.stale);
    return { count: Math.max(0, to - from), stale };
  };
  return { rows, all, layout, selected, top, staleTotal, total: readings(all), shownTypes: readings(rows), above: count(0, top), below: count(Math.min(rows.length, top + page), rows.length) };
}

/** The first row in sight: `top` moved as little as possible to show the selection, kept in range. */
export function windowTop(top: number, selected: number, page: number, total: number): number {
  let t = top;
  if (selected < t) t = selected;
  if (selected >= t + page) t = selected - page + 1;
  return Math.max(0, Math.min(t, total - page));
}

/** The text on the table's bottom border: `+N more (2 stale) ↓`, empty when nothing is below. */
export function belowText(below: OutOfSight): string {
  if (below.count === 0) return '';
  return ` +${below.count} more${below.stale > 0 ? ` (${below.stale} stale)` : ''} ↓ `;
}

/** The text on the table's top border: `↑ 5 more  12/300`, the selected row's position among the rows. */
export function positionText(model: ScreenModel): string {
  if (model.rows.length === 0) return '';
  const up = model.above.count > 0 ? `↑ ${model.above.count} more${model.above.stale > 0 ? ` (${model.above.stale} stale)` : ''}  ` : '';
  return ` ${up}${model.selected + 1}/${model.rows.length} `;
}
