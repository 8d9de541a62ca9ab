import type { Logger } from '../../lib/log.js';
import type { Clock } from '../../lib/time.js';
import type { CursorSync } from './cursor-file.js';
import type { CursorWriting } from './cursor.js';
import type { CurrentSource } from './current-feed.js';
import type { LoopSampler } from './ingest-share.js';
import type { LogTail, StreamPosition } from './log-tail.js';
import type { ForwardRecord } from './record.js';
import type { Sink, SinkSpec } from './sink.js';
import type { StoreHead } from '../storage/store.js';

// What one sink's forwarder (forwarder.ts) is given by forwarding.ts.

/** What a forwarder needs. */
export interface ForwarderDeps {
  spec: SinkSpec;
  sink: Sink;
  tail: LogTail;
  /** The directory of cursor and dead-letter files. */
  stateDir: string;
  /** How the cursor is written: the daemon's --fsync mode. */
  cursorSync: CursorSync;
  /** How the store records paths (relative inside the site directory): the cursor records its files the same way. */
  places?: CursorWriting['places'];
  /** Where the store's writing stands: the timeline's segments (runs), the site's end, the active run's. */
  head(): StoreHead;
  /** The newest seq with a line per stream recorded since start (an ephemeral seq after it is nothing to deliver). */
  lineSeqs: ReadonlyMap<string, number>;
  /** How many events the daemon has recorded since start (changes while ingest is busy). */
  recordedCount(): number;
  /** The event loop's utilization (shared with ingest). */
  loopSampler: LoopSampler;
  /** The unit's current view. */
  current: CurrentSource;
  clock: Clock;
  logger: Logger;
  random(): number;
}

/** A batch read after the cursor. */
export interface Batch {
  records: ForwardRecord[];
  /** The stream's position after the batch (past lines that were no envelopes, too). */
  position: StreamPosition;
  /** Fewer records than a batch holds, and nothing more on disk yet. */
  partial: boolean;
}
