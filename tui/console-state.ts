import { TelemetryConnectionError, TelemetryClientError } from '../client/errors.js';
import { formatMaxAge, rulesFromWire, type MaxAgeRules } from '../lib/max-age.js';
import type { RunRecord, SinkStatus } from '../lib/wire.js';
import { diffSnapshots, type Change, type Snapshot, type SortOrder } from '../table/rows.js';
import { offsetOf, refineOffset, type OffsetBounds } from './daemon-clock.js';
import type { PollOutcome } from './poller.js';

// Everything the console shows, and how a poll outcome changes it. Pure: the local time
// of each outcome comes with it.

/** Where the console stands with the daemon: its link, as the header shows it. */
export type LinkState = 'connecting' | 'live' | 'disconnected' | 'error';

/** Which pane the movement keys act on. */
export type Focus = 'table' | 'detail';

/** The console's state; the screen is drawn from it. */
export interface ConsoleState {
  /** The last view the daemon sent (kept while disconnected). */
  snapshot: Snapshot | undefined;
  etag: string | undefined;
  clock: OffsetBounds | undefined;
  connection: LinkState;
  /** Daemon time of the last good poll. */
  lastGoodPoll: number | undefined;
  /** Why the last poll failed. */
  problem: string | undefined;
  runActive: boolean | undefined;
  run: RunRecord | undefined;
  /** The daemon's forwarding sinks as of the last good poll. */
  sinks: SinkStatus[];
  /** What changed at the last refresh, against the one before (the refresh the operator saw). */
  changes: Map<string, Change>;
  /** The daemon's age limits (GET /status, asked with every poll), undefined until known. */
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

/** The state before the first poll. */
export function initialState(): ConsoleState {
  return {
    snapshot: undefined, etag: undefined, clock: undefined, connection: 'connecting', lastGoodPoll: undefined,
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

/**
 * The state after one poll cycle. Every good answer is a refresh: the change marks then
 * show what changed since the previous one (none after a 304). The limits stay while the
 * daemon is away (its readings only grow older); a restarted one sends its own.
 */
export function applyOutcome(state: ConsoleState, outcome: PollOutcome, type?: string): ConsoleState {
  if (!outcome.ok) {
    const down = outcome.error instanceof TelemetryConnectionError;
    const problem = outcome.error instanceof TelemetryClientError ? outcome.error.detail : String(outcome.error);
    return { ...state, connection: down ? 'disconnected' : 'error', problem, etag: undefined };
  }
  const { poll } = outcome;
  const clock = poll.serverTime === undefined ? state.clock
    : refineOffset(state.clock, poll.serverTime, outcome.sentAt, outcome.receivedAt);
  const next = { ...state, clock, connection: 'live' as const, problem: undefined,
    runActive: outcome.ready.run_active, run: outcome.run, sinks: outcome.sinks ?? state.sinks, ...limitsOf(state, outcome.maxAge) };
  next.lastGoodPoll = daemonNow(next, outcome.receivedAt);
  // the same (empty) map when nothing changed twice in a row: the screen keeps its sorted rows
  if (!poll.changed || !poll.current) return { ...next, changes: state.changes.size === 0 ? state.changes : new Map() };
  const snapshot = onlyType(poll.current, type);
  return { ...next, snapshot, etag: poll.etag, changes: diffSnapshots(state.snapshot, snapshot) };
}

/**
 * The limits after a poll: the same object while they are unchanged (the screen keeps its
 * sorted rows). When they first arrive, stale rows move to the top: a selection nobody chose
 * goes back to the first row.
 */
function limitsOf(state: ConsoleState, wire: Record<string, number | null> | undefined): Partial<ConsoleState> {
  if (wire === undefined) return {};
  const limits = rulesFromWire(wire);
  if (state.limits !== undefined && formatMaxAge(state.limits) === formatMaxAge(limits)) return {};
  return state.limits === undefined && !state.moved ? { limits, selected: undefined, top: 0 } : { limits };
}
