import type { TargetKind } from './target.js';

// What the store reports about its own work, for the metrics: failed writes and fsync
// rounds (how long each took, whether it failed). The store works the same without one.

/** Told of write failures and sync rounds; must not throw or block (it runs on the write path). */
export interface StorageObserver {
  /** A write of `lines` lines to a target failed (they were answered 503). */
  writeFailed(target: TargetKind, lines: number): void;
  /** An fsync round starts; call the returned function when it settles. */
  syncStarted(): (failed: boolean) => void;
}

/** The observer of a store nobody watches. */
export const unobserved: StorageObserver = {
  writeFailed() {},
  syncStarted: () => () => {},
};
