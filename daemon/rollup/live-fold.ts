import { performance } from 'node:perf_hooks';
import type { Logger } from '../../lib/log.js';
import { monotonicNow, type Clock } from '../../lib/time.js';
import type { History } from '../history/history.js';
import { headCursor, locate } from '../history/position.js';
import { formatCursor } from '../ndjson/cursor.js';
import type { RecordedEvent, TelemetryStore } from '../storage/store.js';
import type { RollupEngine } from './engine.js';
import { envelopeParts } from './envelope-parts.js';
import { foldFrom } from './replay.js';

// Folding recorded events into the rollups without slowing the recording down: the onRecorded
// listener only queues each envelope line; a timer folds the queue in slices of time, large
// while the event loop is mostly idle, ~1 ms in 25 ms while it is saturated. A queue that grows
// past MAX_QUEUE (a burst) is dropped: the events after the last one folded are read back from
// the files once the daemon is idle again (or before a query). Queries and stops fold what is
// queued first, so an answer holds every event recorded before it was asked. How busy the loop
// is comes from Node's event-loop utilization (a process figure, not the clock).

const MAX_QUEUE = 50_000;
const TICK_MS = 25;
const BUSY = 0.5;
const BUSY_SLICE_MS = 1;
const IDLE_SLICE_MS = 15;

/** What the live fold works with. */
export interface LiveFoldDeps {
  store: TelemetryStore;
  history: History;
  logger: Logger;
  /** Times the slices of folding (its monotonic part). */
  clock: Clock;
  /** The engine to fold into (it changes when a rebuild is put in place). */
  engine: () => RollupEngine;
  /** Told after something was folded (the next flush writes it). */
  folded: () => void;
}

/** The queue between the recording and the rollups, and how far the rollups have folded. */
export class LiveFold {
  /** The cursor of the last event folded: the checkpoint's. */
  cursor: string;
  private lines: string[] = [];
  private cursors: string[] = [];
  private at = 0;
  /** Set while events after this cursor are in the files only (the queue overflowed). */
  private behind: string | undefined;
  private catching: { end: string; done: Promise<void> } | undefined;
  private generation = 0;
  private elu = performance.eventLoopUtilization();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly deps: LiveFoldDeps, cursor: string) {
    this.cursor = cursor;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  /** The onRecorded listener: queue a permanent event's line (nothing else on the recording's path). */
  readonly listener = (event: RecordedEvent): void => {
    if (!event.permanent || this.behind !== undefined) return;
    this.lines.push(event.reading.json);
    this.cursors.push(formatCursor(event.stream, event.reading.seq));
    if (this.lines.length - this.at > MAX_QUEUE) {
      // a burst: what is queued is read back from the files later, after what is folded (or being folded)
      this.behind = this.catching?.end ?? this.cursor;
      this.deps.logger.debug(`rollups: more than ${MAX_QUEUE} events wait to be folded; they are read back from the files after ${this.behind} once the daemon is idle`);
      this.lines = [];
      this.cursors = [];
      this.at = 0;
    }
  };

  /** Fold everything recorded so far (before a query): the files' part first, then the queue. */
  async catchUp(): Promise<void> {
    while (this.behind !== undefined || this.catching) await (this.catching?.done ?? this.fromFiles());
    this.drain(Infinity);
  }

  /** Fold what is queued now, whatever it takes (a stop: what is only in the files is folded at the next start). */
  drainAll(): void {
    if (!this.catching) this.drain(Infinity);
  }

  /** A rebuilt engine was put in place holding every event up to the store's head: nothing queued is needed. */
  restart(cursor: string): void {
    this.generation++;
    this.cursor = cursor;
    this.behind = undefined;
    this.catching = undefined;
    this.lines = [];
    this.cursors = [];
    this.at = 0;
  }

  /** False while events are read back from the files: the engine is ahead of `cursor` then (no checkpoint may be written). */
  get settled(): boolean {
    return this.catching === undefined;
  }

  /** Stop the timer. */
  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const used = performance.eventLoopUtilization(this.elu).utilization;
    this.elu = performance.eventLoopUtilization();
    if (this.catching) return;
    if (this.behind !== undefined) {
      if (used < BUSY) void this.fromFiles().catch((error: unknown) => this.deps.logger.error(`folding the rollups from the files failed (${(error as Error).message})`));
      return;
    }
    this.drain(used < BUSY ? IDLE_SLICE_MS : BUSY_SLICE_MS);
  }

  /** Fold queued lines for up to `sliceMs`. */
  private drain(sliceMs: number): void {
    if (this.at >= this.lines.length) return;
    const engine = this.deps.engine();
    const until = monotonicNow(this.deps.clock) + sliceMs;
    let i = this.at;
    while (i < this.lines.length) {
      const parts = envelopeParts(this.lines[i]!);
      try {
        if (parts) engine.fold(parts);
      } catch (error) {
        this.deps.logger.error(`folding ${this.cursors[i]} into the rollups failed (${(error as Error).message}); POST /rollups/rebuild makes them again`);
      }
      this.cursor = this.cursors[i]!;
      i++;
      if ((i & 63) === 0 && monotonicNow(this.deps.clock) > until) break;
    }
    this.at = i;
    this.deps.folded();
    if (this.at === this.lines.length) {
      this.lines = [];
      this.cursors = [];
      this.at = 0;
    }
  }

  /** Read the events after `behind` back from the files; from the same turn on, new events are queued again. */
  private fromFiles(): Promise<void> {
    const { store, history } = this.deps;
    const head = store.head();
    const start = locate(head, this.behind!, 'the rollups\' last folded event');
    const end = headCursor(head);
    const generation = this.generation;
    this.behind = undefined;
    const done = (async () => {
      const engine = this.deps.engine();
      // between pages the recording goes on
      await foldFrom(history, head, start, engine, () => new Promise<void>((resolve) => setImmediate(resolve)), 1000);
      if (generation !== this.generation) return;
      this.cursor = end;
      this.deps.folded();
    })().finally(() => { if (generation === this.generation) this.catching = undefined; });
    this.catching = { end, done };
    return done;
  }
}
