import type { RunRecord, SinkStatus } from '../lib/wire.js';
import { fitText, formatClock, formatInterval } from '../table/format.js';
import { runIdOf, type Snapshot } from '../table/rows.js';
import type { ConsoleState } from './console-state.js';
import type { ConsoleWidgets } from './layout.js';

// The header: daemon address, connection state with the time of the last word from the
// daemon, the active run (or "site"), the number of types, the poll interval, sort and
// filter, and the forwarding sinks that are behind. LIVE only while the stream is
// connected; POLLING against a daemon without one. "updated" is on the daemon's clock.

/**
 * The header's run: the active run's id from GET /run; when a run is active but its record
 * is unknown, the run id of the newest reading that has one; "site" outside a run.
 */
export function runLabel(runActive: boolean | undefined, run: RunRecord | undefined, snapshot: Snapshot | undefined): string {
  if (run) return run.run_id;
  if (runActive === false) return 'site';
  const withRun = Object.values(snapshot ?? {}).filter((e) => runIdOf(e) !== '-')
    .sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0));
  return withRun[0] ? runIdOf(withRun[0]) : 'site';
}

// a sink this far behind (or not ok) is shown: a few seconds is a batch on its way
const BEHIND_SECONDS = 10;

/** `sinks behind: bus failing 1834 events, db 52 events`, or undefined when every sink keeps up. */
export function sinksBehind(sinks: readonly SinkStatus[]): string | undefined {
  const behind = sinks.filter((s) => s.state !== 'ok' || s.lag_seconds >= BEHIND_SECONDS);
  if (behind.length === 0) return undefined;
  return `sinks behind: ${behind.map((s) => `${s.name}${s.state === 'ok' ? '' : ` ${s.state}`} ${s.lag_events} event${s.lag_events === 1 ? '' : 's'}`).join(', ')}`;
}

/** What the header needs besides the state. */
export interface HeaderInfo {
  address: string;
  intervalMs: number;
  type: string | undefined;
  /** Rows shown after the filter. */
  shown: number;
}

function connectionText(state: ConsoleState, intervalMs: number): string {
  const last = state.lastGoodPoll === undefined ? 'never' : formatClock(state.lastGoodPoll);
  if (state.paused) return `PAUSED  updated ${last}`;
  switch (state.connection) {
    case 'connecting': return 'CONNECTING';
    case 'live': return `LIVE  updated ${last}`;
    case 'polling': return `POLLING every ${formatInterval(intervalMs)}  updated ${last}`;
    case 'disconnected': return `DISCONNECTED  retrying  updated ${last}`;
    case 'error': return `ERROR  updated ${last}  ${state.problem ?? ''}`;
  }
}

/** The two header lines (plain text). */
export function headerLines(state: ConsoleState, info: HeaderInfo): [string, string] {
  const total = Object.keys(state.snapshot ?? {}).length;
  const types = state.filter ? `${info.shown}/${total} types` : `${total} ${total === 1 ? 'type' : 'types'}`;
  const parts = [`run ${runLabel(state.runActive, state.run, state.snapshot)}`,
    info.type === undefined ? types : `type ${info.type}`, `poll ${formatInterval(info.intervalMs)}`];
  if (info.type === undefined) parts.push(`sort ${state.sort}`);
  if (state.filter) parts.push(`filter "${state.filter}"`);
  const sinks = sinksBehind(state.sinks);
  if (sinks) parts.push(sinks);
  return [`meridian ${info.address}  ${connectionText(state, info.intervalMs)}`, parts.join('  ')];
}

/** Colour of the connection word (ANSI SGR), none in monochrome. */
function stateColour(state: ConsoleState, noColor: boolean): string {
  if (noColor) return state.connection === 'live' && !state.paused ? '' : '\x1b[1m';
  if (state.paused) return '\x1b[1;33m';
  if (state.connection === 'polling') return '\x1b[1;36m';
  return state.connection === 'live' ? '\x1b[1;32m' : state.connection === 'connecting' ? '\x1b[1m' : '\x1b[1;37;41m';
}

/** Draw the header, each line cut to the screen's width. */
export function renderHeader(w: ConsoleWidgets, state: ConsoleState, info: HeaderInfo, noColor: boolean): void {
  const width = w.screen.width as number;
  const [first, second] = headerLines(state, info).map((l) => fitText(l, width).trimEnd()) as [string, string];
  const prefix = `meridian ${info.address}  `;
  const word = first.slice(prefix.length).split('  ')[0]!;
  const colour = stateColour(state, noColor);
  const line = colour && first.startsWith(prefix + word)
    ? `${prefix}${colour}${word}\x1b[0m${first.slice(prefix.length + word.length)}` : first;
  const content = `${line}\n${second}`;
  if (w.header.getContent() !== content) w.header.setContent(content);
}
