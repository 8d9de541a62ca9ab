import { expectedTypes, maxAgeOf } from '../lib/max-age.js';
import { ageOf, buildRows, matchesFilter, rejudge, sortInPlace, toRow, type Judge, type Row } from '../table/rows.js';
import { daemonNow, type ConsoleState } from './console-state.js';

// What the screen shows for a state, pure: every row (stale and missing ones on top), the
// slice of rows in sight, the selection, and how many rows (and stale ones) are out of
// sight above and below. Ages and staleness by the daemon's limits (or --max-age).

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
  /** Changes whenever a row's cells other than its age may have changed (the column widths are laid out again). */
  layout: number;
  /** Index of the selected row (0 when there are none). */
  selected: number;
  /** Index of the first row in sight. */
  top: number;
  /** Stale (and missing) types in the whole view, whatever the filter. */
  staleTotal: number;
  /** Types in the whole view (missing ones included). */
  total: number;
  above: OutOfSight;
  below: OutOfSight;
}

/** What the model needs besides the state. */
export interface ModelOptions {
  /** The local clock now (epoch ms). */
  localNow: number;
  /** --max-age in ms: the limit of every type instead of the daemon's. */
  limitMs: number | undefined;
  /** The single-type console's type. */
  type: string | undefined;
  /** Rows the table shows at once. */
  page: number;
}

/** The judge of the console: ages on the estimated daemon clock, limits from the daemon (or --max-age). */
export function consoleJudge(state: ConsoleState, now: number, limitMs: number | undefined): Judge {
  const limits = state.limits;
  return (type, envelope) => {
    const seconds = limits === undefined ? undefined : maxAgeOf(limits, type);
    return { ageMs: envelope ? ageOf(envelope, now) : undefined, limitMs: limitMs ?? (seconds === undefined ? undefined : seconds * 1000) };
  };
}

/** The model of the screen for `state` (no rows kept from an earlier call). */
export function screenModel(state: ConsoleState, o: ModelOptions): ScreenModel {
  return screenModeler()(state, o);
}

/** The rows a modeler keeps between calls, and what they were built from. */
interface Kept {
  snapshot: ConsoleState['snapshot'];
  changes: ConsoleState['changes'];
  /** The limits, order, --max-age and type: a change of any of these builds the rows anew. */
  inputs: unknown[];
  rows: Row[];
  byType: Map<string, Row>;
  /** Counts the builds and patches (ScreenModel.layout). */
  layout: number;
}

/**
 * A screenModel that keeps its sorted rows between calls. While the limits and the order stay
 * the same, a new view only replaces the rows of the readings that changed (the stream brings
 * one at a time), and every row is judged again (ages move on) and the nearly sorted rows
 * sorted again: 100,000 types cost a loop, not 100,000 new rows, on each draw.
 */
export function screenModeler(): (state: ConsoleState, o: ModelOptions) => ScreenModel {
  let kept: Kept | undefined;
  return (state, o) => {
    const judge = consoleJudge(state, daemonNow(state, o.localNow), o.limitMs);
    const inputs = [state.limits, state.order.key, state.order.reverse, o.limitMs, o.type];
    if (!kept || !kept.inputs.every((v, i) => v === inputs[i]) || !patched(kept, state, judge)) {
      let missing = state.limits === undefined || state.snapshot === undefined ? [] : expectedTypes(state.limits);
      if (o.type !== undefined) missing = missing.filter((t) => t === o.type);
      const rows = buildRows(state.snapshot ?? {}, { judge, missing, changes: state.changes, filter: '', order: state.order });
      kept = { snapshot: state.snapshot, changes: state.changes, inputs, rows, byType: new Map(rows.map((r) => [r.type, r])), layout: (kept?.layout ?? 0) + 1 };
      return modelOf(state, rows, o.page, kept.layout);
    }
    let turned = kept.snapshot !== state.snapshot || kept.changes !== state.changes;
    if (kept.snapshot !== state.snapshot) kept.layout++;
    for (const row of kept.rows) turned = rejudge(row, judge) || turned;
    if (turned) sortInPlace(kept.rows, state.order);
    kept.snapshot = state.snapshot;
    kept.changes = state.changes;
    return modelOf(state, kept.rows, o.page, kept.layout);
  };
}

/**
 * Bring the kept rows to `state`'s view and change marks in place; false when that cannot be
 * done (a type came or went: the rows are built anew).
 */
function patched(kept: Kept, state: ConsoleState, judge: Judge): boolean {
  const view = state.snapshot ?? {};
  if (kept.snapshot !== state.snapshot) {
    let readings = 0;
    for (const type in view) {
      const row = kept.byType.get(type);
      if (!row) return false;
      readings++;
      if (row.envelope !== view[type]) Object.assign(row, toRow(type, view[type], judge, state.changes.get(type)));
    }
    if (readings !== kept.rows.reduce((n, r) => n + Number(r.envelope !== undefined), 0)) return false;
  }
  if (kept.changes !== state.changes) {
    for (const type of new Set([...kept.changes.keys(), ...state.changes.keys()])) {
      const row = kept.byType.get(type);
      if (row) row.change = state.changes.get(type);
    }
  }
  return true;
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
  return { rows, all, layout, selected, top, staleTotal, total: all.length, above: count(0, top), below: count(Math.min(rows.length, top + page), rows.length) };
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
