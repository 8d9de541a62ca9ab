import { TelemetryClientError } from '../client/errors.js';
import type { WatchUpdate } from '../client/watch.js';
import { ageAt, formatMaxAge, rulesFromWire, type MaxAgeRules } from '../lib/max-age.js';
import type { Envelope, RunRecord, SinkStatus } from '../lib/wire.js';
import type { Snapshot, SortOrder } from '../table/rows.js';
import type { ChartSpan } from './chart-keeper.js';
import { offsetOf, refineOffset, type OffsetBounds } from './daemon-clock.js';

// Everything the console shows, and how an update of the watch loop (client/watch.ts)
// changes it. Pure: the local time of each update comes with it.

/** Where the console stands with the daemon, as the header shows it: `live` only while the stream is connected. */
export type LinkState = 'connecting' | 'live' | 'polling' | 'disconnected' | 'error';

/** Readings that came since the last frame drawn (see ConsoleState.fresh). */
export type Fresh = ReadonlySet<string> | 'view';

/** Nothing came since the last frame. */
export const NOTHING_FRESH: ReadonlySet<string> = new Set();

/** Which pane the movement keys act on. */
export type Focus = 'table' | 'detail';

/** The console's state; the screen is drawn from it. */
export interface ConsoleState {
  /**
   * The last view the daemon sent (kept while disconnected): the watch loop's own view,
   * updated in place by stream events (never copied per event).
   */
  snapshot: Snapshot | undefined;
  /** An envelope of the snapshot as the daemon sent it (the detail pane shows its bytes), when the watch knows it. */
  textOf: ((envelope: Envelope) => string) | undefined;
  /**
   * What came since the last frame drawn: the types with new readings, or `view` for a whole
   * new view (the first, after a reconnection or a pause, each poll). The screen model marks
   * what changed against that frame; the console empties it once the frame is drawn.
   */
  fresh: Fresh;
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
  /**
   * When each type's current reading came, on the local monotonic clock, and its age then:
   * its age can then never go back with a stepped clock (lib/reading-age.ts, the daemon's
   * rule). Updated in place, like the view (100,000 types are not copied for each event).
   */
  receipts: Map<string, Receipt>;
  /** Since when the daemon's disk is full (GET /status `disk_full`); undefined while it has space. */
  diskFull: { since: string; file: string; code: string } | undefined;
  /** The daemon's age limits (GET /status, asked every interval), undefined until known. */
  limits: MaxAgeRules | undefined;
  /** The limits the daemon learned from each type's cadence (GET /status `learned`), seconds by type. */
  learned: Readonly<Record<string, number>> | undefined;
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
  /** The chart view is open (`c`): its span and which field (an index into the sorted fields). */
  chart: boolean;
  chartSpan: ChartSpan;
  chartField: number;
  /** The filter prompt is open. */
  prompting: boolean;
  /** What has been typed at the filter prompt. */
  draft: string;
}

/** When a reading (seq, ts) came on the local monotonic clock, and its age then (ms). */
export interface Receipt {
  seq: number;
  ts: string;
  mono: number;
  ageMs: number;
}

/** The state before the first answer. */
export function initialState(): ConsoleState {
  return {
    snapshot: undefined, textOf: undefined, fresh: NOTHING_FRESH, clock: undefined, connection: 'connecting', lastGoodPoll: undefined,
    problem: undefined, runActive: undefined, run: undefined, sinks: [], receipts: new Map(), diskFull: undefined, limits: undefined, learned: undefined, selected: undefined,
    moved: false, top: 0, order: { key: 'type', reverse: false }, filter: '', detail: true, focus: 'table', detailScroll: 0,
    paused: false, help: false, chart: false, chartSpan: '1h', chartField: 0, prompting: false, draft: '',
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
    // a /status that did not answer leaves the disk's state as it was
    const diskFull = update.diskFull === undefined ? state.diskFull : update.diskFull ?? undefined;
    const next = { ...state, clock, runActive: update.ready.run_active, run: update.run, sinks: update.sinks ?? state.sinks, diskFull, ...limitsOf(state, update.maxAge),
      learned: update.learned ?? state.learned };
    return { ...next, lastGoodPoll: daemonNow(next, update.receivedAt) };
  }
  const snapshot = onlyType(update.current, type);
  const lastGoodPoll = daemonNow(state, update.receivedAt);
  for (const e of update.changed) {
    state.receipts.set(e.type, { seq: e.seq, ts: e.ts, mono: update.receivedMono ?? NaN, ageMs: ageAt(e.ts, lastGoodPoll) ?? 0 });
  }
  return { ...state, snapshot, textOf: update.text, lastGoodPoll, fresh: freshWith(state, snapshot, update.changed) };
}

/** The state once a frame is drawn: nothing fresh (the same state when nothing was). */
export function framed(state: ConsoleState): ConsoleState {
  return state.fresh === NOTHING_FRESH ? state : { ...state, fresh: NOTHING_FRESH };
}

/** Stream events add their types (a few); a new view object, or many readings at once, is a whole view. */
function freshWith(state: ConsoleState, snapshot: Snapshot, changed: readonly Envelope[]): Fresh {
  if (state.fresh === 'view' || snapshot !== state.snapshot || changed.length > 64) return 'view';
  if (changed.length === 0) return state.fresh;
  const types = new Set(state.fresh);
  for (const envelope of changed) types.add(envelope.type);
  return types;
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
