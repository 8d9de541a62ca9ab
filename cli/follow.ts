import { setTimeout as delay } from 'node:timers/promises';
import type { TelemetryClient } from '../client/client.js';
import { TelemetryConnectionError } from '../client/errors.js';
import type { Envelope } from '../lib/wire.js';
import { say, type CliIo } from './io.js';

// `telemetry current [TYPE] --follow`, piped: one JSON line per envelope that became current,
// polled with If-None-Match every interval, across daemon restarts, until stopped.

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
 * Print new envelopes until `io.stopSignal()` fires; resolves 0 then. Says on stderr when the
 * daemon is not there, lost, and back. An error answer (401, 403, ...) rejects (exit 1).
 */
export async function followCurrent(options: FollowOptions, io: CliIo): Promise<number> {
  const signal = io.stopSignal();
  const stopped = new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
  const printed = new Map<string, string>();
  let etag: string | undefined;
  let state: 'starting' | 'connected' | 'absent' | 'lost' = 'starting';
  while (!signal.aborted) {
    try {
      const poll = await Promise.race([options.client.pollCurrent(etag), stopped]);
      if (!poll) break;
      if (state === 'lost') say(io, `reconnected to ${options.address}`);
      if (state === 'absent') say(io, `connected to ${options.address}`);
      state = 'connected';
      if (poll.changed && poll.current) {
        etag = poll.etag;
        for (const envelope of newEnvelopes(printed, poll.current, options.type)) io.out(`${JSON.stringify(envelope)}\n`);
      }
    } catch (error) {
      if (!(error instanceof TelemetryConnectionError)) throw error;
      if (state === 'connected') {
        say(io, `lost the daemon at ${options.address}; retrying`);
        state = 'lost';
      } else if (state === 'starting') {
        say(io, `no telemetry daemon at ${options.address}; retrying`);
        state = 'absent';
      }
    }
    await delay(options.intervalMs, undefined, { signal }).catch(() => undefined);
  }
  return 0;
}
