import path from 'node:path';
import type { SinkStatus } from '../../lib/wire.js';
import { retryDelay } from './backoff.js';
import { deliveredAll, SinkCursor } from './cursor.js';
import { countDeadLetters, writeDeadLetter } from './dead-letter.js';
import { within, withTimeout } from './deadline.js';
import { EphemeralQueue } from './ephemeral.js';
import { SinkHealth } from './health.js';
import { IngestShare } from './ingest-share.js';
import { HeldFile } from '../ndjson/held.js';
import { lagAfter, lagEvents, pendingAge } from './lag.js';
import { flags } from './log-tail.js';
import type { ForwardRecord } from './record.js';
import { ReadAhead } from './read-ahead.js';
import { openCursor, takeRuns } from './runs.js';
import { shownUrl } from './secrets.js';
import { errorText, SinkRejection, type SendExtra, type SinkSpec } from './sink.js';
import { CurrentFeed, viewFirstAtStart } from './current-feed.js';
import { VERSION } from '../../lib/version.js';
import { Wake } from './wake.js';
import type { Batch, ForwarderDeps } from './forwarder-deps.js';

// The loop every sink shares: read the next batch after the cursor, send it (one batch in flight),
// move the cursor once the peer acknowledged it, back off and retry on failure, split a refused
// batch until the refused record is found and put it in the dead-letter file.
// Ephemeral events take the same loop from a small queue, live and once. The unit's current view
// goes first, at start, after a failed delivery and when the sink says so (current-feed.ts).

// an idle sink looks at the files this often even without being woken
const IDLE_POLL_MS = 1000;

/** Forwards the log to one sink, from its cursor on, until stopped. */
export class Forwarder {
  private readonly deps: ForwarderDeps;
  private readonly spec: SinkSpec;
  private readonly health = new SinkHealth();
  private readonly wake = new Wake();
  private readonly abort = new AbortController();
  private readonly cursor: SinkCursor;
  private readonly deadFile: string;
  private readonly ephemeral: EphemeralQueue;
  private readonly ahead = new ReadAhead();
  // the file being read, kept open from one batch to the next while catching up
  private readonly held = new HeldFile();
  private oldestPendingTs: string | undefined;
  private stopped = false;
  // in a retry delay: ephemeral events that arrive now are dropped at once
  private backingOff = false;
  private readonly share: IngestShare;
  private readonly feed: CurrentFeed;
  private loop: Promise<void> | undefined;

  constructor(deps: ForwarderDeps) {
    this.deps = deps;
    this.spec = deps.spec;
    const cursorFile = path.join(deps.stateDir, `${deps.spec.name}.cursor.json`);
    this.cursor = new SinkCursor(cursorFile, deps.spec.name, {
      onSaveError: (error) => {
        const reason = `could not write ${cursorFile} (${errorText(error)}); records may be sent again after a restart`;
        // one line per outage, not per batch: /status keeps saying it
        if (this.health.cursorError === undefined) deps.logger.error(`sink ${deps.spec.name}: ${reason}`);
        this.health.cursorError = reason;
      },
      onSaved: () => {
        if (this.health.cursorError === undefined) return;
        this.health.cursorError = undefined;
        deps.logger.info(`sink ${deps.spec.name}: ${cursorFile} written again`);
      },
      sync: deps.cursorSync, now: () => deps.clock.now(), places: deps.places,
    });
    this.deadFile = path.join(deps.stateDir, `${deps.spec.name}.dead.ndjson`);
    this.share = new IngestShare(deps.loopSampler);
    this.ephemeral = new EphemeralQueue(deps.spec.ephemeralQueue);
    this.feed = new CurrentFeed(deps.current, deps.spec.kind === 'postgres');
  }

  /** Load the cursor (or start one) and run the loop in the background. */
  start(): void {
    const { logger } = this.deps;
    const problem = openCursor(this.cursor, this.spec.start, this.deps.head(), this.deps.tail);
    if (problem) logger.warn(`sink ${this.spec.name}: ${problem}; starting from the ${this.spec.start} of the log`);
    this.health.deadLetters = countDeadLetters(this.deadFile);
    if (viewFirstAtStart(this.spec, this.lag(), this.deps.current)) this.feed.outage();
    this.deps.sink.onPeerReset?.(() => { this.feed.outage(); this.wake.wake(); });
    this.deps.sink.onClash?.((text) => { if (this.health.clash(text, this.deps.clock.now())) logger.warn(`sink ${this.spec.name}: ${text}`); });
    logger.info(`sink ${this.spec.name}: forwarding to ${shownUrl(this.spec)} (cursor ${this.cursor.file})`);
    this.loop = this.run();
  }

  /** New events were recorded in `stream`: take in a run the cursor does not follow yet, wake the loop. Cheap: runs on the write path. */
  notify(stream: string): void {
    if (!this.cursor.has(stream)) takeRuns(this.cursor, this.deps.head().segments);
    this.wake.wake();
  }

  /** A type's current reading changed: a PostgreSQL sink sends it (woken). Cheap: runs on the write path. */
  currentChanged(type: string): void {
    this.feed.changedType(type);
    if (this.spec.kind === 'postgres') this.wake.wake();
  }

  /** An ephemeral event was recorded: queue it for the loop; during a retry delay it is dropped at once. Cheap: runs on the write path. */
  offerEphemeral(record: ForwardRecord): void {
    if (!this.spec.ephemeral || this.stopped) return;
    if (this.backingOff) {
      this.ephemeral.refuse();
      return;
    }
    this.ephemeral.offer(record);
    this.wake.wake();
  }

  /**
   * Stop: no new batch is sent; the batch in flight is given `graceMs` to be
   * acknowledged (its cursor then moves: a peer that took it is not sent it again after the
   * restart), then abandoned (its cursor not moved); the cursor is written whole, the sink closed.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    this.wake.stop();
    const loop = this.loop ?? Promise.resolve();
    await within(loop, graceMs);
    this.abort.abort();
    await within(loop, graceMs);
    await within(Promise.all([this.cursor.close(), this.deps.sink.close(), this.held.close()]), graceMs);
  }

  /** Whether this sink has delivered all of `file` (`size` bytes long): housekeeping may compress or delete it. */
  delivered(file: string, size: number): boolean {
    return deliveredAll(this.cursor.entries(), file, size);
  }

  /** The sink's line in /status. */
  status(): SinkStatus {
    const { sent, dropped } = this.ephemeral;
    return this.health.status(this.spec, this.deps.clock.now(), this.lag(), this.oldestPendingTs, { sent, dropped }, this.cursor.skipped);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.step();
      } catch (error) {
        // reading the files failed (or a bug): keep the sink alive, say why in /status
        this.deps.logger.error(`sink ${this.spec.name}: ${errorText(error)}`);
        await this.backOff(error);
      }
    }
  }

  /** One turn of the loop: deliver the next batch, or wait for new events. */
  private async step(): Promise<void> {
    // the step's whole time counts for the pause below: reading the batch from the files
    // costs the daemon as much as sending it
    let started = this.deps.clock.now();
    if (this.ephemeral.size > 0) {
      const { count, error } = await this.ephemeral.sendOnce(this.spec.batchRecords, (records) => this.send(records));
      if (error !== undefined) {
        // the sink is down for ephemeral events too: /status says so, and the next ones wait out a retry delay
        this.deps.logger.debug(`sink ${this.spec.name}: dropped ${count} ephemeral event(s) (${errorText(error)})`);
        await this.backOff(error);
        return;
      }
      this.succeeded();
    }
    if (this.stopped) return;
    let batch = await this.nextBatch();
    if (batch?.partial && this.spec.lingerMs > 0) {
      // not a full batch: give the events that are coming the linger time to join it
      await this.wake.wait(this.spec.lingerMs, true);
      if (this.stopped) return;
      started = this.deps.clock.now();
      batch = await this.nextBatch() ?? batch;
    }
    if (batch) {
      await this.deliver(batch);
      // catching up: leave the event loop to ingest when events pour in
      const pause = batch.partial ? 0 : this.share.pauseAfter(this.deps.recordedCount(), this.deps.clock.now() - started);
      if (pause > 0) await this.wake.wait(pause, true);
      return;
    }
    this.oldestPendingTs = undefined;
    if (this.feed.dueWhenIdle(this.deps.clock.now())) await this.sendCurrent();
    else await this.wake.wait(IDLE_POLL_MS);
  }

  /**
   * Send the current readings pending, alone; false (after the retry delay) when the peer could not take them.
   * `ahead`: fresh first, before a batch of events: its success is not the sink coming back (a batch the
   * peer fails on would otherwise reset the backoff, last_success and the outage at every retry).
   */
  private async sendCurrent(ahead = false): Promise<boolean> {
    try {
      const events = this.lag();
      const seconds = pendingAge(events, this.oldestPendingTs, this.deps.clock.now());
      await this.send([], { ...this.feed.take(), version: VERSION, lag: { events, seconds }, ...this.feed.unitLine(this.deps.clock.now(), true, events) });
      if (!ahead) this.succeeded();
      return true;
    } catch (error) {
      if (this.stopped) return false;
      if (!(error instanceof SinkRejection)) {
        await this.backOff(error);
        return false;
      }
      // refused for good: not tried again and again (the backlog would wait behind it)
      this.deps.logger.warn(`sink ${this.spec.name}: the current view was refused (${error.message}); the backlog goes on`);
      return true;
    }
  }

  /** The next records after the cursor, from the first stream that has any. */
  private async nextBatch(): Promise<Batch | undefined> {
    const limits = this.limits();
    const head = this.deps.head();
    for (const [stream, pos] of this.cursor.entries()) {
      const read = await this.ahead.take(stream, pos) ?? await this.deps.tail.read(stream, pos, limits, head.site.file, this.held);
      for (const gap of read.gaps) {
        if (!this.cursor.skipped.includes(gap)) this.deps.logger.warn(`sink ${this.spec.name}: ${gap}`);
        this.cursor.skip(gap);
      }
      if (read.records.length > 0) {
        this.oldestPendingTs = read.records[0]!.ts;
        return { records: read.records, position: read.position, partial: read.atEnd && read.records.length < limits.records };
      }
      this.ahead.drop();
      this.cursor.moveTo(stream, read.position);
      // a stopped run's file is forwarded to its end: forget it
      if (read.atEnd && stream !== 'site' && head.run?.id !== stream) {
        this.cursor.forget(stream);
        takeRuns(this.cursor, head.segments); // a later segment of the same run id, in another file, waited for it
      }
    }
    return undefined;
  }

  /** Deliver a batch: retry transient failures, split refused batches, dead-letter refused records. */
  private async deliver(batch: Batch): Promise<void> {
    const queue: ForwardRecord[][] = [batch.records];
    if (!batch.partial) {
      // a full batch: more is likely on disk; read it while this one is in flight
      const stream = batch.records[0]!.stream;
      const siteHead = this.deps.head().site.file;
      this.ahead.start(stream, batch.position, async () => {
        const read = await this.deps.tail.read(stream, batch.position, this.limits(), siteHead, this.held);
        if (read.records.length > 0) this.deps.sink.prepare?.(read.records);
        return read;
      });
    }
    while (queue.length > 0 && !this.stopped) {
      const chunk = queue[0]!;
      try {
        // the cursor of the batch before is written while this one was read: on disk before this one goes
        await this.cursor.flushed();
        // fresh first: the unit's current view before any of the backlog
        if (this.feed.wholePending && !(await this.sendCurrent(true))) continue;
        await this.send(chunk, this.extraOf(chunk));
        this.health.delivered += chunk.length;
        this.acknowledged(chunk);
        queue.shift();
      } catch (error) {
        if (this.stopped) return;
        try {
          if (error instanceof SinkRejection) {
            queue.splice(0, 1, ...this.refused(chunk, error));
            continue;
          }
        } catch (deadLetterError) {
          error = deadLetterError;
        }
        await this.backOff(error);
      }
    }
    if (!this.stopped) this.cursor.moveTo(batch.records[0]!.stream, batch.position);
  }

  /** What goes with a chunk: PostgreSQL's changed current readings (in its transaction), the lag after it. */
  private extraOf(chunk: ForwardRecord[]): SendExtra | undefined {
    if (this.spec.kind !== 'postgres') return undefined;
    const now = this.deps.clock.now(), lag = lagAfter(this.lag(), chunk, now);
    return { ...this.feed.take(), version: VERSION, lag, ...this.feed.unitLine(now, false, lag.events) };
  }

  private lag(): number {
    return lagEvents(this.cursor.entries(), this.deps.head(), this.deps.lineSeqs);
  }

  /** Send one chunk; past the timeout (or at a stop) the attempt is aborted, so one batch is ever in flight. */
  private async send(chunk: ForwardRecord[], extra?: SendExtra): Promise<void> {
    const attempt = new AbortController();
    const onStop = () => attempt.abort();
    this.abort.signal.addEventListener('abort', onStop, { once: true });
    try {
      await withTimeout(this.deps.sink.send(chunk, attempt.signal, extra), this.spec.timeoutMs,
        `no acknowledgement within ${this.spec.timeoutMs} ms`, () => attempt.abort());
      this.feed.delivered(this.deps.clock.now());
    } finally {
      this.abort.signal.removeEventListener('abort', onStop);
    }
  }

  /** A refused chunk: halves to send on their own, or (one record) its dead letter. */
  private refused(chunk: ForwardRecord[], error: SinkRejection): ForwardRecord[][] {
    // the current readings the refused chunk carried go again with the next one
    this.feed.outage();
    if (chunk.length > 1) {
      const half = Math.ceil(chunk.length / 2);
      return [chunk.slice(0, half), chunk.slice(half)];
    }
    const record = chunk[0]!;
    writeDeadLetter(this.deadFile, this.spec.name, record, error.message, this.deps.clock.now());
    this.health.deadLetters++;
    this.deps.logger.warn(`sink ${this.spec.name}: ${record.stream}:${record.seq} refused (${error.message}); written to ${this.deadFile}`);
    this.acknowledged(chunk);
    return [];
  }

  private acknowledged(chunk: ForwardRecord[]): void {
    this.succeeded();
    const last = chunk[chunk.length - 1]!;
    // the highest seq taken stays (a day read by offset after the clock stepped back: see StreamPosition)
    const seq = Math.max(last.seq, this.cursor.at(last.stream)?.seq ?? 0);
    this.cursor.moveTo(last.stream, { file: last.file, offset: last.end, seq, ...flags(last) });
  }

  private limits(): { records: number; bytes: number } {
    return { records: this.spec.batchRecords, bytes: this.spec.batchBytes };
  }

  private succeeded(): void {
    const outage = this.health.success(this.deps.clock.now());
    if (outage !== undefined) this.deps.logger.info(`sink ${this.spec.name}: delivering again after ${(outage / 1000).toFixed(1)} s`);
  }

  private async backOff(error: unknown): Promise<void> {
    const reason = errorText(error);
    // ephemeral events are never retried: those waiting go now, later ones until a delivery succeeds
    this.ephemeral.dropAll();
    this.feed.outage();
    const attempt = this.health.failure(this.deps.clock.now(), reason);
    const delay = retryDelay(attempt, this.spec.retry, this.deps.random);
    const message = `sink ${this.spec.name}: delivery failed (${reason}); retry ${attempt} in ${delay} ms`;
    if (attempt === 1) this.deps.logger.warn(message); else this.deps.logger.debug(message);
    this.backingOff = true;
    try {
      await this.wake.wait(delay, true);
    } finally {
      this.backingOff = false;
    }
  }
}
