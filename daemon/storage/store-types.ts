import type { FsyncMode } from '../../lib/config.js';
import type { Logger } from '../../lib/log.js';
import type { Clock } from '../../lib/time.js';
import type { Reading } from './current-view.js';
import type { StorageObserver } from './observer.js';
import type { StorageFs } from './storage-fs.js';
import type { TargetKind } from './target.js';
import type { Segment } from './timeline.js';

// The types the rest of the daemon uses to talk to the store (re-exported by store.ts).

/** What the store needs from the outside world. */
export interface StoreOptions {
  siteDir: string;
  zone: string;
  fsync: FsyncMode;
  clock: Clock;
  logger: Logger;
  /** How often a changed state is snapshotted (ms); 0 disables the timer. */
  snapshotIntervalMs?: number;
  /** The file-system calls that write (default node:fs); tests inject failures here. */
  fs?: StorageFs;
  /** Told of failed writes and sync rounds (the metrics). */
  observer?: StorageObserver;
  /** The size of the chunks (characters) the `/current` body and the snapshot are built in; tests make it small. */
  viewChunkChars?: number;
}

/** An event that passed validation; `data` and `meta` are JSON texts as the caller spelled them. */
export interface ValidEvent {
  type: string;
  data: string;
  makeCurrent: boolean;
  /** false: ephemeral (a seq and a view update, no line in any telemetry file). */
  storePermanently: boolean;
  /** The caller's ts, already in the envelope form; undefined: the daemon's clock. */
  ts?: string;
  /** The caller's ts in ms since the epoch, as validation read it (with `ts`). */
  tsMs?: number;
  /** A JSON object text. */
  meta: string;
  /**
   * The reading's own limit (`meta.max_age_s`) as validation read it: seconds, or null when it
   * carries none; undefined when not known (the judge then reads it from the envelope).
   */
  maxAgeS?: number | null;
}

/** A recorded event: its reading (envelope line and all), where it went, the run it belongs to. */
export interface Recorded {
  reading: Reading;
  target: TargetKind;
  /** The target's file (for an ephemeral event: where it would have gone; nothing was written). */
  file: string;
  runId: string | undefined;
  permanent: boolean;
}

/** A recorded batch (POST /events): how many, their seqs, where they went. */
export interface BatchRecorded {
  recorded: number;
  firstSeq: number;
  lastSeq: number;
  target: TargetKind;
  file: string;
  runId: string | undefined;
}

/** An event as it was recorded, for the listeners of `onRecorded` (streams, forwarders, metrics). */
export interface RecordedEvent {
  /** The envelope and its JSON line (without newline). */
  reading: Reading;
  /** `site`, or the run's id: the seq counter the envelope belongs to. */
  stream: string;
  target: TargetKind;
  /** The target's file (for an ephemeral event nothing was written to it). */
  file: string;
  makeCurrent: boolean;
  /** false: an ephemeral event (store_permanently false), in no file. */
  permanent: boolean;
}

/** Called once per recorded event, in seq order, after its line was handed to the OS. */
export type RecordedListener = (event: RecordedEvent) => void;

/** How far a target's file is written: its path, its length in whole lines, and its last seq. */
export interface TargetEnd {
  /** '' before the first site line. */
  file: string;
  bytes: number;
  seq: number;
}

/** Where writing stands now: the segments in record order (a copy), the site's end and the active run's. */
export interface StoreHead {
  segments: Segment[];
  site: TargetEnd;
  run: (TargetEnd & { id: string }) | undefined;
}

/** Events recorded since the daemon started, permanent and ephemeral apart (GET /status). */
export interface RecordedCounts {
  permanent: number;
  ephemeral: number;
}
