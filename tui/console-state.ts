import { TelemetryClientError } from '../client/errors.js';
import type { WatchUpdate } from '../client/watch.js';
import { formatMaxAge, rulesFromWire, type MaxAgeRules } from '../lib/max-age.js';
import type { Envelope, RunRecord, SinkStatus } from '../lib/wire.js';
import { changeOf, diffSnapshots, type Change, type Snapshot, type SortOrder } from '../table/rows.js';
import { offsetOf, refineOffset, type OffsetBounds } from './daemon-clock.js';

// Everything the console shows, and how an update of the watch loop (client/watch.ts) and
// the one-second refresh change it. Pure: the local time of each update comes with it.

/** Where the console stands with the daemon, as the header shows it: `live` only while the stream is connected. */
export type LinkState = 'connecting' | 'live' | 'polling' | 'disconnected' | 'error';

/** Which pane the movement keys act on. */
export type Focus = 'table' | 'detail';

/** The console's state; the screen is drawn from it. */
export interface ConsoleState {
  /** The last view the daemon sent (kept while disconnected). */
  snapshot: Snapshot | undefined;
  /** The view as of the refresh before the last one: the change marks are against it. */
  base: Snapshot | undefined;
  /** The view as of the last refresh. */
  seen: Snapshot | undefined;
  clock: OffsetBounds | undefined;
  connection: LinkState;
  /** Daemon time of the last word from the daemon (a view or a status). */
  lastGoodPoll: number | undefined;
  /** Why the connection failed. */
  problem: string | undefined;
  runActive: boolean | undefined;
  run: RunRecord | undefined;
  /** The daemon's forwarding sinks as of the last status. */
  sinks: SinkStatus[];
  /** What changed since the refresh before the last one (see `refresh`). */
  changes: Map<string, Change>;
  /** The daemon's age limits (GET /status, asked every interval), undefined until known. */
  limits: MaxAgeRules | undefined;
  selected: string | undefined;
  /** The operator moved the selection (until then it stays on the first row as rows come and go). */
  moved: boolean;
  /** Index of the first row shown (the table scrolls to keep the selection in sight). */
  top: number;
  order: SortOrder;
  filter: string;
  detail: boolean;
  focus: Focus;
  /** Lines the detail pane is scrolled down. */
  detailScroll: number;
  paused: boolean;
  help: boolean;
  /** The filter prompt is open. */
  prompting: boolean;
  /** What has been typed at the filter prompt. */
  draft: string;
}

/** The state before the first answer. */
export function initialState(): ConsoleState {
  return {
    snapshot: undefined, base: undefined, seen: undefined, clock: undefined, connection: 'connecting', lastGoodPoll: undefined,
    problem: undefined, runActive: undefined, run: undefined, sinks: [], changes: new Map(), limits: undefined, selected: undefined,
    moved: false, top: 0, order: { key: 'type', reverse: false }, filter: '', detail: true, focus: 'table', detailScroll: 0,
    paused: false, help: false, prompting: false, draft: '',
  };
}

/** The daemon's clock at local time `localNow`. */
export function daemonNow(state: ConsoleState, localNow: number): number {
  return localNow + offsetOf(state.clock);
}

/** Keep only `type` (the single-type console). */
export function onlyType(snapshot: Snapshot, type: string | undefined): Snapshot {
  if (type === undefined) return snapshot;
  return snapshot[type] ? { [type]: snapshot[type] } : {};
}

/** The state after one update of the watch loop. The limits stay while the daemon is away (its readings only grow older). */
export function applyUpdate(state: ConsoleState, update: WatchUpdate, type?: string): ConsoleState {
  if (update.kind === 'connection') {
    if (update.state === 'streaming' || update.state === 'polling') {
      return { ...state, connection: update.state === 'streaming' ? 'live' : 'polling', problem: undefined };
    }
    const problem = update.error instanceof TelemetryClientError ? update.error.detail : String(update.error);
    return { ...state, connection: update.state, problem };
  }
  if (update.kind === 'status') {
    const clock = update.serverTime === undefined ? state.clock : refineOffset(state.clock, update.serverTime, update.sentAt, update.receivedAt);
    const next = { ...state, clock, runActive: update.ready.run_active, run: update.run, sinks: update.sinks ?? state.sinks, ...limitsOf(state, update.maxAge) };
    return { ...next, lastGoodPoll: daemonNow(next, update.receivedAt) };
  }
  const snapshot = onlyType(update.current, type);
  const lastGoodPoll = daemonNow(state, update.receivedAt);
  // the first view is what the operator saw first: what changes after it is marked
  if (state.seen === undefined) return { ...state, snapshot, lastGoodPoll, base: snapshot, seen: snapshot };
  return { ...state, snapshot, lastGoodPoll, changes: changesWith(state, snapshot, update.changed) };
}

/**
 * The refresh of every second: the change marks show what changed since the refresh before
 * this one, so a change is marked from the moment it arrives for one to two seconds, and a
 * row stays marked only while it keeps changing. The same (empty) map when nothing changed
 * (the screen keeps its sorted rows).
 */
export function refresh(state: ConsoleState): ConsoleState {
  const base = state.seen;
  const changes = diffSnapshots(base, state.snapshot ?? {});
  return { ...state, base, seen: state.snapshot, changes: changes.size === 0 && state.changes.size === 0 ? state.changes : changes };
}

/**
 * The limits after a status: the same object while they are unchanged (the screen keeps its
 * sorted rows). When they first arrive, stale rows move to the top: a selection nobody chose
 * goes back to the first row.
 */
function limitsOf(state: ConsoleState, wire: Record<string, number | null> | undefined): Partial<ConsoleState> {
  if (wire === undefined) return {};
  const limits = rulesFromWire(wire);
  if (state.limits !== undefined && formatMaxAge(state.limits) === formatMaxAge(limits)) return {};
  return state.limits === undefined && !state.moved ? { limits, selected: undefined, top: 0 } : { limits };
}

/**
 * The change marks after a view update: the marks so far, and those of the readings the
 * update brought, against the refresh before the last one. One stream event costs its own
 * reading, not a comparison of every type (the refresh compares them all once a second).
 */
function changesWith(state: ConsoleState, snapshot: Snapshot, changed: readonly Envelope[]): Map<string, Change> {
  if (changed.length > 64) return diffSnapshots(state.base, snapshot);
  const base: Snapshot = state.base ?? {};
  const marks = new Map(state.changes);
  for (const envelope of changed) {
    if (snapshot[envelope.type] !== envelope) continue;
    const mark = changeOf(base[envelope.type], envelope);
    if (mark) marks.set(envelope.type, mark); else marks.delete(envelope.type);
  }
  return marks;
}
