import { setTimeout as delay } from 'node:timers/promises';
import { monotonicNow, type Clock } from '../lib/time.js';
import type { Envelope, ReadyAnswer, RunRecord, SinkStatus, StatusAnswer } from '../lib/wire.js';
import type { TelemetryClient } from './client.js';
import { TelemetryClientError, TelemetryConnectionError } from './errors.js';

// The one watch loop of the current view, shared by `current --follow` (piped) and the
// console: the stream first (GET /stream, the view then every change as it is recorded), and
// polling GET /current every interval against a daemon that has no stream (answers 404/405).
// With `status`, the daemon's readiness, active run, clock, forwarding sinks and age limits
// are also asked every interval.

/** Where the watch stands: `streaming` (live), `polling` (a daemon without /stream), or not connected. */
export type WatchState = 'streaming' | 'polling' | 'disconnected' | 'error';

/** What the watch reports; `receivedAt` is the local clock. */
export type WatchUpdate =
  /**
   * The whole view (only the watched types) and the readings that changed in it. `current` is
   * the watch's own view, updated in place by later stream events (the same object until the
   * next whole view: a reconnection or a poll): read it, never change it, and do not take it
   * for a copy (100,000 types are not copied for each event).
   */
  | { kind: 'view'; current: Readonly<Record<string, Envelope>>; changed: Envelope[]; receivedAt: number;
    /** The local monotonic clock when it came (NaN without one): ages that a stepped clock cannot turn back. */
    receivedMono?: number;
    /** An envelope of this watch as the daemon's text (for output that passes its bytes on). */
    text?: (envelope: Envelope) => string }
  /**
   * The daemon's readiness, active run, clock, forwarding sinks, age limits and full disk (with
   * `status`; `sinks`, `maxAge` and `diskFull` undefined when /status did not answer; `diskFull`
   * null while the disk has space).
   */
  | { kind: 'status'; ready: ReadyAnswer; run: RunRecord | undefined; sinks: SinkStatus[] | undefined;
    maxAge?: StatusAnswer['max_age']; learned?: StatusAnswer['learned']; diskFull?: StatusAnswer['disk_full']; serverTime: number | undefined; sentAt: number; receivedAt: number }
  /** The connection changed state (`error`: an error answer, such as a wrong token). */
  | { kind: 'connection'; state: WatchState; error: unknown; receivedAt: number };

/** What the watch runs on. */
export interface WatchOptions {
  client: TelemetryClient;
  clock: Clock;
  /** Only this type (default every type). */
  type?: string;
  /** Between polls and status requests, and before retrying after an error (ms). */
  intervalMs: number;
  /** Also report status every interval. */
  status?: boolean;
}

/** A running watch. */
export interface Watch {
  /** Stop watching until resume() (the console's pause); resume starts again with the whole view. */
  pause(): void;
  resume(): void;
  /** Stop for good; `done` settles. */
  stop(): void;
  /** Settles once stopped; rejects when `onUpdate` threw. */
  readonly done: Promise<void>;
}

/** Start watching; `onUpdate` is called for each update, in order (a throw from it ends the watch with that error). */
export function watchCurrent(options: WatchOptions, onUpdate: (update: WatchUpdate) => void): Watch {
  let controller = new AbortController();
  let stopped = false;
  let wake: (() => void) | undefined;
  const run = async (): Promise<void> => {
    while (!stopped) {
      const signal = controller.signal;
      if (signal.aborted) {
        // paused: wait for resume() or stop()
        await new Promise<void>((resolve) => { wake = resolve; });
        continue;
      }
      const loops = [readings(options, signal, onUpdate)];
      if (options.status) loops.push(statusLoop(options, signal, onUpdate));
      await Promise.all(loops.map((p) => p.catch((error) => { controller.abort(); stopped = true; throw error; })));
    }
  };
  const done = run();
  return {
    pause: () => controller.abort(),
    resume: () => {
      if (stopped || !controller.signal.aborted) return;
      controller = new AbortController();
      wake?.();
    },
    stop: () => {
      stopped = true;
      controller.abort();
      wake?.();
    },
    done,
  };
}

/** The view from the stream; from polls when the daemon has none. */
async function readings(o: WatchOptions, signal: AbortSignal, emit: (u: WatchUpdate) => void): Promise<void> {
  let view: Record<string, Envelope> = {};
  let state: WatchState | undefined;
  // each envelope's text as received, kept while the envelope is
  const texts = new WeakMap<Envelope, string>();
  const text = (e: Envelope) => texts.get(e) ?? JSON.stringify(e);
  const connection = (next: WatchState, error?: unknown) => {
    if (next !== state || next === 'error') emit({ kind: 'connection', state: next, error, receivedAt: o.clock.now() });
    state = next;
  };
  const show = (next: Record<string, Envelope>, changed: Envelope[]) => {
    view = next;
    emit({ kind: 'view', current: view, changed, receivedAt: o.clock.now(), receivedMono: monotonicNow(o.clock), text });
  };
  while (!signal.aborted) {
    let snapshot: Record<string, Envelope> | undefined;
    try {
      for await (const m of o.client.stream({ types: o.type === undefined ? undefined : [o.type], resume: false, signal })) {
        if (m.kind === 'snapshot' || m.kind === 'event') texts.set(m.envelope, m.text);
        if (m.kind === 'snapshot') (snapshot ??= {})[m.envelope.type] = m.envelope;
        else if (m.kind === 'live') {
          const next = snapshot ?? {};
          snapshot = undefined;
          connection('streaming');
          show(next, Object.values(next).filter((e) => !same(view[e.type], e)));
        } else if (m.kind === 'event' && m.current !== false && state === 'streaming') {
          view[m.envelope.type] = m.envelope; // in place: one reading, not a copy of the view
          emit({ kind: 'view', current: view, changed: [m.envelope], receivedAt: o.clock.now(), receivedMono: monotonicNow(o.clock), text });
        } else if (m.kind === 'disconnected') {
          snapshot = undefined;
          connection('disconnected', m.error);
        }
      }
      return;
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof TelemetryClientError && (error.statusCode === 404 || error.statusCode === 405)) {
        return poll(o, signal, view, (next, changed) => show(next, changed), connection, texts);
      }
      connection('error', error);
    }
    await delay(o.intervalMs, undefined, { signal }).catch(() => undefined);
  }
}

/** Polling GET /current with If-None-Match, for a daemon without /stream. */
async function poll(o: WatchOptions, signal: AbortSignal, start: Record<string, Envelope>,
  show: (next: Record<string, Envelope>, changed: Envelope[]) => void, connection: (s: WatchState, e?: unknown) => void,
  texts: WeakMap<Envelope, string>): Promise<void> {
  let view = start;
  let etag: string | undefined;
  while (!signal.aborted) {
    try {
      const answer = await o.client.pollCurrent(etag);
      if (signal.aborted) return;
      connection('polling');
      if (answer.changed && answer.current) {
        etag = answer.etag;
        const next = o.type === undefined ? answer.current : answer.current[o.type] ? { [o.type]: answer.current[o.type]! } : {};
        for (const [type, e] of Object.entries(next)) texts.set(e, answer.texts?.get(type) ?? JSON.stringify(e));
        const changed = Object.values(next).filter((e) => !same(view[e.type], e));
        view = next;
        show(next, changed);
      }
    } catch (error) {
      if (signal.aborted) return;
      etag = undefined;
      connection(error instanceof TelemetryConnectionError ? 'disconnected' : 'error', error);
    }
    await delay(o.intervalMs, undefined, { signal }).catch(() => undefined);
  }
}

/** Readiness, run and clock every interval (failures are the readings loop's to report). */
async function statusLoop(o: WatchOptions, signal: AbortSignal, emit: (u: WatchUpdate) => void): Promise<void> {
  while (!signal.aborted) {
    try {
      const sentAt = o.clock.now();
      const { ready, serverTime } = await o.client.readyAt();
      const run = ready.run_active ? await o.client.getRun().catch(noRun) : undefined;
      // the sinks and limits are extra: a /status that fails leaves the watch working
      const status = await o.client.status().catch(() => undefined);
      if (signal.aborted) return;
      const diskFull = status && (status.disk_full ?? null);
      emit({ kind: 'status', ready, run, sinks: status?.forward, maxAge: status?.max_age, learned: status?.learned, diskFull, serverTime, sentAt, receivedAt: o.clock.now() });
    } catch (error) {
      if (!(error instanceof TelemetryClientError)) throw error;
    }
    await delay(o.intervalMs, undefined, { signal }).catch(() => undefined);
  }
}

function noRun(error: unknown): undefined {
  if (error instanceof TelemetryClientError && error.statusCode === 404) return undefined; // stopped in between
  throw error;
}

function same(a: Envelope | undefined, b: Envelope): boolean {
  return a !== undefined && a.seq === b.seq && a.ts === b.ts;
}
