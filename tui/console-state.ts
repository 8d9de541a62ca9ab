import { TelemetryClientError } from '../client/errors.js';
import type { WatchUpdate } from '../client/watch.js';
import type { RunRecord, SinkStatus } from '../lib/wire.js';
import { trackChanges, type Snapshot, type SortKey } from '../table/rows.js';
import { offsetOf, refineOffset, type OffsetBounds } from './daemon-clock.js';

// Everything the console shows, and how an update of the watch loop (client/watch.ts)
// changes it. Pure: the local time of each update comes with it.

/** Where the console stands with the daemon, as the header shows it: `live` only while the stream is connected. */
export type LinkState = 'connecting' | 'live' | 'polling' | 'disconnected' | 'error';

/** The console's state; the screen is drawn from it. */
export interface ConsoleState {
  /** The last view the daemon sent (kept while disconnected). */
  snapshot: Snapshot | undefined;
  clock: OffsetBounds | undefined;
  connection: LinkState;
  /** Daemon time of the last word from the daemon (a view or a status). */
  lastGoodPoll: number | undefined;
  /** Why the connection failed. */
  problem: string | undefined;
  runActive: boolean | undefined;
  run: RunRecord | undefined;
  /** The daemon's forwarding sinks as of the last good poll. */
  sinks: SinkStatus[];
  changedAt: Map<string, number>;
  selected: string | undefined;
  sort: SortKey;
  filter: string;
  detail: boolean;
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
    snapshot: undefined, clock: undefined, connection: 'connecting', lastGoodPoll: undefined,
    problem: undefined, runActive: undefined, run: undefined, sinks: [], changedAt: new Map(), selected: undefined,
    sort: 'type', filter: '', detail: true, paused: false, help: false, prompting: false, draft: '',
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

/** The state after one update of the watch loop. */
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
    const next = { ...state, clock, runActive: update.ready.run_active, run: update.run, sinks: update.sinks ?? state.sinks };
    return { ...next, lastGoodPoll: daemonNow(next, update.receivedAt) };
  }
  const now = daemonNow(state, update.receivedAt);
  const snapshot = onlyType(update.current, type);
  return { ...state, snapshot, lastGoodPoll: now, changedAt: trackChanges(state.snapshot, snapshot, now, state.changedAt) };
}
