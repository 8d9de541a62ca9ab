import type { RunRecord, SinkStatus } from '../lib/wire.js';
import { fitText, formatClock, formatInterval } from '../table/format.js';
import { runIdOf, type Snapshot } from '../table/rows.js';
import type { ConsoleState } from './console-state.js';
import type { ConsoleWidgets } from './layout.js';
import type { ScreenTheme } from './theme.js';

// The header: daemon address, connection state with the time of the last word; then
// the active run (or "site"), how many types are stale, the number of types, the interval,
// sort and filter, and the forwarding sinks that are behind. Until the daemon has answered
// once it claims nothing but that it is connecting. "updated" is the last time the daemon
// said something (a reading or a status), on its clock.

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
  /** Types with a reading among the rows shown after the filter. */
  shown: number;
  /** Types with a reading in the view, as `telemetry status` counts them (expected types without one count in `stale` only). */
  total: number;
  /** Stale and missing types in the view, whatever the filter. */
  stale: number;
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

/** The stale count as the header shows it ("2 STALE"), empty when none. */
export function staleText(stale: number): string {
  return stale > 0 ? `${stale} STALE` : '';
}

/** The full disk as the header shows it: `DISK FULL since 03:12:09Z: not recording`. */
export function diskFullText(diskFull: { since: string }): string {
  return `DISK FULL since ${formatClock(Date.parse(diskFull.since))}: not recording`;
}

/** The two header lines (plain text). */
export function headerLines(state: ConsoleState, info: HeaderInfo): [string, string] {
  const first = `meridian ${info.address}  ${connectionText(state, info.intervalMs)}`;
  if (state.lastGoodPoll === undefined) {
    return [first, state.connection === 'connecting' ? 'waiting for the daemon to answer' : 'no answer from the daemon yet'];
  }
  const types = state.filter ? `${info.shown}/${info.total} types` : `${info.total} ${info.total === 1 ? 'type' : 'types'}`;
  const parts = [`run ${runLabel(state.runActive, state.run, state.snapshot)}`];
  if (state.diskFull) parts.push(diskFullText(state.diskFull));
  if (info.stale > 0) parts.push(staleText(info.stale));
  parts.push(info.type === undefined ? types : `type ${info.type}`, `poll ${formatInterval(info.intervalMs)}`);
  if (info.type === undefined) parts.push(`sort ${state.order.key}${state.order.reverse ? ' reversed' : ''}`);
  if (state.filter) parts.push(`filter "${state.filter}"`);
  const sinks = sinksBehind(state.sinks);
  if (sinks) parts.push(sinks);
  return [first, parts.join('  ')];
}

/** The SGR of the connection word: live, alert (paused, connecting, polling) or down (disconnected, error). */
function stateMarks(state: ConsoleState, theme: ScreenTheme): readonly [string, string] {
  if (state.paused || state.connection === 'connecting' || state.connection === 'polling') return theme.alert;
  return state.connection === 'live' ? theme.live : theme.down;
}

/** `line` with the marks around the first occurrence of `word` after `from` (when it is there whole). */
function mark(line: string, word: string, from: number, [on, off]: readonly [string, string]): string {
  const at = line.indexOf(word, from);
  if (on === '' || word === '' || at === -1) return line;
  return `${line.slice(0, at)}${on}${word}${off}${line.slice(at + word.length)}`;
}

/** Draw the header, each line cut to the screen's width. */
export function renderHeader(w: ConsoleWidgets, state: ConsoleState, info: HeaderInfo): void {
  const width = w.screen.width as number;
  const [first, second] = headerLines(state, info).map((l) => fitText(l, width).trimEnd()) as [string, string];
  const prefix = `meridian ${info.address}  `;
  const word = first.slice(prefix.length).split('  ')[0]!;
  const line1 = first.startsWith(prefix) ? mark(first, word, prefix.length, stateMarks(state, w.theme)) : first;
  const stale = state.lastGoodPoll === undefined ? second : mark(second, staleText(info.stale), 0, w.theme.stale);
  const line2 = state.diskFull && state.lastGoodPoll !== undefined ? mark(stale, 'DISK FULL', 0, w.theme.down) : stale;
  const content = `${line1}\n${line2}`;
  if (w.header.getContent() !== content) w.header.setContent(content);
}
