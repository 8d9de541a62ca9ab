import { formatTs } from '../../lib/time.js';

// What GET /status says of the rollups (docs/http-api.md): whether they are whole and written,
// and why the last rebuild happened (a tier file found shorter than its checkpoint, a damaged
// checkpoint, an operator's `rollup rebuild`), so that a rebuild never passes unseen.

/** The `rollups` member of /status. */
export interface RollupStatus {
  /** ok; rebuilding (answers may lack readings until it ends); unwritten (a write failed: kept in memory); failed (a rebuild failed). */
  state: 'ok' | 'rebuilding' | 'unwritten' | 'failed';
  /** When the state began (ts); null when ok. */
  since: string | null;
  /** Why: the rebuild's cause, the write's or the rebuild's error; null when ok. */
  reason: string | null;
  /** The last rebuild that ended since the daemon started: when, and why it was done; null when none. */
  last_rebuild: { at: string; reason: string } | null;
}

/** The rollups' state as it changes, read by /status. */
export class RollupState {
  private rebuild: { since: number; reason: string } | undefined;
  private problem: { state: 'unwritten' | 'failed'; since: number; reason: string } | undefined;
  private last: RollupStatus['last_rebuild'] = null;

  /** A rebuild began, and why (a rebuild already under way keeps its cause). */
  rebuilding(reason: string, now: number): void {
    this.rebuild ??= { since: now, reason };
  }

  /** The rebuild under way ended: it is in place, or it failed with `error`. */
  rebuilt(now: number, error?: string): void {
    if (this.rebuild === undefined) return;
    if (error === undefined) this.last = { at: formatTs(now), reason: this.rebuild.reason };
    this.problem = error === undefined ? undefined : { state: 'failed', since: now, reason: `rebuilding the rollups failed (${error})` };
    this.rebuild = undefined;
  }

  /** A write of the tiers failed (`code`) or, with undefined, succeeded. */
  written(now: number, code?: string): void {
    if (code === undefined) {
      if (this.problem?.state === 'unwritten') this.problem = undefined;
      return;
    }
    if (this.problem?.state !== 'unwritten') this.problem = { state: 'unwritten', since: now, reason: `the rollups could not be written (${code}); they are kept in memory` };
  }

  /** The `rollups` member of /status. */
  status(): RollupStatus {
    const now = this.rebuild !== undefined ? { state: 'rebuilding' as const, ...this.rebuild } : this.problem;
    return now === undefined
      ? { state: 'ok', since: null, reason: null, last_rebuild: this.last }
      : { state: now.state, since: formatTs(now.since), reason: now.reason, last_rebuild: this.last };
  }
}
