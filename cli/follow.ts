import type { TelemetryClient } from '../client/client.js';
import { watchCurrent } from '../client/watch.js';
import type { Envelope } from '../lib/wire.js';
import { say, show, type CliIo } from './io.js';

// `telemetry current [TYPE] --follow`, piped: one JSON line per envelope that became current,
// from the shared watch loop (the stream, or polls of a daemon without one), across daemon
// restarts, until stopped.

/**
 * The envelopes of `current` not printed yet (for `type` only, when given), oldest first:
 * a type's envelope is new when its seq or ts differs from the last one printed for that
 * type. `printed` (type -> "seq ts") is updated.
 */
export function newEnvelopes(printed: Map<string, string>, current: Readonly<Record<string, Envelope>>, type: string | undefined): Envelope[] {
  const candidates = type === undefined ? Object.values(current) : current[type] ? [current[type]!] : [];
  const fresh = candidates.filter((e) => printed.get(e.type) !== `${e.seq} ${e.ts}`);
  for (const e of fresh) printed.set(e.type, `${e.seq} ${e.ts}`);
  return fresh.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.seq - b.seq || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0)));
}

/** What the loop needs. */
export interface FollowOptions {
  client: TelemetryClient;
  address: string;
  type: string | undefined;
  intervalMs: number;
}

/**
 * Print new readings until `io.stopSignal()` fires; resolves 0 then. Follows the stream (polls
 * a daemon without one, every interval), says on stderr when the daemon is not there, lost,
 * and back. An error answer (401, 403, ...) rejects (exit 1).
 */
export async function followCurrent(options: FollowOptions, io: CliIo): Promise<number> {
  const signal = io.stopSignal();
  const printed = new Map<string, string>();
  let state: 'starting' | 'connected' | 'absent' | 'lost' = 'starting';
  const watch = watchCurrent({ client: options.client, clock: { now: io.now }, type: options.type, intervalMs: options.intervalMs }, (update) => {
    if (update.kind === 'view') {
      const changed = Object.fromEntries(update.changed.map((e) => [e.type, e]));
      // the daemon's bytes of each envelope, as received (decoding would respell numbers and escapes)
      const text = update.text ?? ((e: Envelope) => JSON.stringify(e));
      for (const envelope of newEnvelopes(printed, changed, options.type)) show(io, `${text(envelope)}\n`);
    } else if (update.kind === 'connection') {
      if (update.state === 'error') throw update.error;
      if (update.state === 'disconnected') {
        if (state === 'connected') say(io, `lost the daemon at ${options.address}; retrying`);
        else if (state === 'starting') say(io, `no telemetry daemon at ${options.address}; retrying`);
        state = state === 'connected' ? 'lost' : state === 'starting' ? 'absent' : state;
      } else {
        if (state === 'lost') say(io, `reconnected to ${options.address}`);
        if (state === 'absent') say(io, `connected to ${options.address}`);
        state = 'connected';
      }
    }
  });
  const stop = () => watch.stop();
  signal.addEventListener('abort', stop, { once: true });
  if (signal.aborted) stop();
  try {
    await watch.done;
  } finally {
    signal.removeEventListener('abort', stop);
  }
  return 0;
}
