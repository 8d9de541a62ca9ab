import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../lib/log.js';
import { monotonicNow, type Clock } from '../../lib/time.js';
import type { MaxAgeRules } from '../../lib/max-age.js';
import type { History } from '../history/history.js';
import { headCursor, locate } from '../history/position.js';
import { statePaths } from '../storage/state-files.js';
import type { TelemetryStore } from '../storage/store.js';
import { RollupEngine } from './engine.js';
import { LiveFold } from './live-fold.js';
import { rebuildRollups, RebuildStopped } from './rebuild.js';
import { foldFrom } from './replay.js';
import { bucketText, type BucketText } from './bucket-text.js';
import { RollupState, type RollupStatus } from './rollup-status.js';
import { TierCache } from './tier-cache.js';
import { tierFile } from './tier-file.js';
import { appendPending, cutToCheckpoint, readCheckpoint, settleRebuild, TierShort, writeCheckpoint, zoneName } from './tier-store.js';
import type { TierName } from './tiers.js';

// The rollups of a daemon (docs/rollups.md): opened at start-up (the tier files cut back to
// the checkpoint, the events after it folded again), fed by `onRecorded`, flushed and
// checkpointed every `flushIntervalMs`, rebuilt on demand, asked for a type's buckets.

/** What the rollups need from the daemon. */
export interface RollupOptions {
  siteDir: string;
  zone: string;
  rules: MaxAgeRules;
  store: TelemetryStore;
  history: History;
  logger: Logger;
  /** The daemon's clock (its monotonic part times the folding and the first build). */
  clock: Clock;
  /** How often closed buckets are written and the checkpoint saved (ms; default 2000). */
  flushIntervalMs?: number;
}

/** A site directory's rollups, live. */
export class Rollups {
  private engine: RollupEngine;
  private files: Record<string, number>;
  private rebuilding: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly live: LiveFold;
  /** The tier files' parsed lines, kept between queries (tier-cache.ts). */
  private readonly cache = new TierCache();
  private dirty = false;
  private stopped = false;
  private failing = false;
  /** While the first build runs (no usable checkpoint at start): nothing is written until it is in place. */
  private building = false;
  /** What /status says: a rebuild under way and why, a failed write, the last rebuild. */
  private readonly state = new RollupState();

  private constructor(private readonly root: string, private readonly options: RollupOptions, engine: RollupEngine, files: Record<string, number>) {
    this.engine = engine;
    this.files = files;
    const { store, history, logger, clock } = options;
    // events recorded from here on: queued by the listener, folded by the live fold (live-fold.ts)
    this.live = new LiveFold({ store, history, logger, clock, engine: () => this.engine, folded: () => { this.dirty = true; } }, headCursor(store.head()));
    this.unsubscribe = store.onRecorded(this.live.listener);
    this.timer = setInterval(() => this.flushOrSay(), options.flushIntervalMs ?? 2000);
    this.timer.unref();
  }

  /**
   * Open the rollups of a site directory before the daemon takes events: the events after the
   * checkpoint are folded again. Without a usable checkpoint (a first start, a damaged one) they
   * are built from the recorded files in the background, so that start-up stays fast.
   */
  static async open(options: RollupOptions): Promise<Rollups> {
    const root = path.join(statePaths(options.siteDir).dir, 'rollups');
    settleRebuild(root);
    const { checkpoint, damaged } = readCheckpoint(root);
    const { store, history, zone, rules } = options;
    let cause: string | undefined;
    if (checkpoint) {
      try {
        const start = locate(store.head(), checkpoint.cursor, 'the rollup checkpoint');
        // the open night buckets were cut in another zone: the night tier is rebuilt in this one
        if (checkpoint.zone !== undefined && checkpoint.zone !== zoneName(zone)) {
          throw new Error(`its night buckets were cut in the zone ${checkpoint.zone}, the daemon runs in ${zoneName(zone)}`);
        }
        cutToCheckpoint(root, checkpoint.files);
        const engine = new RollupEngine(zone, rules, checkpoint.types);
        engine.late = checkpoint.late;
        engine.omitted = isCounts(checkpoint.omitted) ? { ...checkpoint.omitted } : undefined;
        const files = { ...checkpoint.files };
        await foldFrom(history, store.head(), start, engine, () => appendPending(root, engine, files));
        const rollups = new Rollups(root, options, engine, files);
        rollups.dirty = true;
        rollups.flush();
        return rollups;
      } catch (error) {
        cause = `the rollup checkpoint cannot be resumed (${(error as Error).message})`;
        options.logger.warn(`${cause}; rebuilding the rollups from the recorded files`);
      }
    } else if (damaged) {
      options.logger.warn(`the rollup checkpoint is damaged (${damaged}); rebuilding the rollups from the recorded files`);
    }
    const rollups = new Rollups(root, options, new RollupEngine(zone, rules), {});
    const why = cause ?? (damaged ? `the rollup checkpoint is damaged (${damaged})` : 'no rollup checkpoint: built from the recorded files');
    // a new site directory (nothing recorded, no rollups yet): nothing to build
    if (headCursor(store.head()) === 'site:0' && !fs.existsSync(root)) return rollups;
    rollups.building = true;
    const t0 = monotonicNow(options.clock);
    rollups.rebuild(why).then(() => options.logger.info(`rollups built from the recorded files in ${((monotonicNow(options.clock) - t0) / 1000).toFixed(1)} s`),
      (error: unknown) => {
        if (!(error instanceof RebuildStopped)) options.logger.error(`building the rollups failed (${(error as Error).message}); POST /rollups/rebuild tries again`);
      });
    return rollups;
  }

  /** Rebuild every tier from the recorded files (a rebuild under way is joined, not started twice); `reason` is what /status says of it. */
  rebuild(reason = 'asked for (POST /rollups/rebuild)'): Promise<void> {
    if (this.rebuilding === undefined) this.state.rebuilding(reason, this.options.clock.now());
    this.rebuilding ??= rebuildRollups({
      root: this.root, zone: this.options.zone, rules: this.options.rules, store: this.options.store, history: this.options.history,
      stopped: () => this.stopped,
      takeLive: (engine, files) => {
        this.engine = engine;
        this.files = files;
        this.dirty = false;
        this.building = false;
        this.live.restart(headCursor(this.options.store.head()));
      },
    }).then(() => this.state.rebuilt(this.options.clock.now()), (error: unknown) => {
      if (!(error instanceof RebuildStopped)) this.state.rebuilt(this.options.clock.now(), (error as Error).message);
      throw error;
    }).finally(() => { this.rebuilding = undefined; });
    return this.rebuilding;
  }

  /** The `rollups` member of GET /status. */
  status(): RollupStatus {
    return this.state.status();
  }

  /** The ts (ms) of a type's first reading with a numeric field, undefined when none. */
  firstOf(type: string): number | undefined {
    return this.engine.firstOf(type);
  }

  /** Readings left out because they came with a ts before their type's last reading. */
  late(): number {
    return this.engine.late;
  }

  /**
   * Whether every reading of `type` recorded so far is in the tiers with each of its top-level
   * numeric members under its own name: the tiers are built (no first build or rebuild under
   * way), no reading was left out as late, none had a member left out or renamed (fields.ts).
   * The night report then reads its weather from the 1-minute tier (docs/reports.md).
   */
  complete(type: string): boolean {
    const omitted = this.engine.omitted;
    return !this.building && this.rebuilding === undefined && this.engine.late === 0 && omitted !== undefined && !omitted[type];
  }

  /** A type's buckets of a tier that overlap [from, to) (ms), the open one answered as of `now`. */
  async buckets(type: string, tier: TierName, from: number, to: number, now: number): Promise<BucketText[]> {
    // every event recorded before the question is in the answer
    await this.live.catchUp();
    const rel = tierFile(tier, type);
    // a tier file cut or removed beneath the daemon: rebuilt (as at start-up) before it answers
    const short = this.shortFile(rel);
    if (short) {
      await this.rebuildShort(short).catch(() => undefined);
      if (!this.shortFile(rel)) return this.buckets(type, tier, from, to, now);
    }
    // taken before the file is read: a flush meanwhile moves these into the file (deduplicated below)
    const pending = [...(this.engine.pending.get(rel) ?? [])];
    const open = this.engine.openRecord(type, tier, now);
    const stored = await this.cache.read(path.join(this.root, rel), from, to);
    const lastStored = stored.at(-1)?.s ?? -Infinity;
    const later = [...pending, ...(open ? [open] : [])].filter((r) => r.s > lastStored && r.e > from && r.s < to);
    return [...stored, ...later.map(bucketText)];
  }

  /** Write closed buckets and the checkpoint now (also at every interval and at close). */
  flush(): void {
    if (!this.dirty || this.building || !this.live.settled) return;
    appendPending(this.root, this.engine, this.files);
    writeCheckpoint(this.root, {
      version: 1, zone: zoneName(this.options.zone), cursor: this.live.cursor, files: this.files, late: this.engine.late, omitted: this.engine.omitted, types: this.engine.state(),
    });
    this.dirty = false;
  }

  /** flush(), a failure logged (once until one succeeds again): the rollups never stop the daemon; what is not written stays in memory. */
  private flushOrSay(): void {
    try {
      this.flush();
      this.failing = false;
      this.state.written(this.options.clock.now());
    } catch (error) {
      if (error instanceof TierShort) {
        this.rebuildShort(error).catch(() => undefined);
        return;
      }
      if (!this.failing) {
        this.options.logger.error(`the rollups could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); ` +
          'they are kept in memory and written once it works again');
      }
      this.failing = true;
      this.state.written(this.options.clock.now(), (error as NodeJS.ErrnoException).code ?? (error as Error).message);
    }
  }

  /** The tier file `rel` when it is shorter than the daemon wrote it (no rebuild under way), else undefined. */
  private shortFile(rel: string): TierShort | undefined {
    if (this.building || this.rebuilding !== undefined) return undefined;
    const written = this.files[rel] ?? 0;
    const size = fs.statSync(path.join(this.root, rel), { throwIfNoEntry: false })?.size ?? 0;
    return size < written ? new TierShort(rel, size, written) : undefined;
  }

  /** Rebuild the tiers because a tier file was found short (/status says so while it runs); a failure is logged and kept in /status. */
  private rebuildShort(short: TierShort): Promise<void> {
    if (this.rebuilding === undefined) this.options.logger.warn(`${short.message}; rebuilding the rollups from the recorded files`);
    return this.rebuild(short.message).catch((e: unknown) => {
      if (!(e instanceof RebuildStopped)) this.options.logger.error(`rebuilding the rollups failed (${(e as Error).message}); POST /rollups/rebuild tries again`);
      throw e;
    });
  }

  /** Stop listening and write what is open (the daemon calls it before closing the store). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.unsubscribe();
    this.live.stop();
    this.stopped = true;
    await this.rebuilding?.catch(() => undefined);
    // what is queued is folded now; what is only in the files (after a burst) at the next start
    this.live.drainAll();
    try {
      this.flush();
    } catch (error) {
      this.options.logger.warn(`the rollups could not be written at stop (${(error as Error).message}); they are folded again at the next start`);
    }
  }
}

/** A checkpoint's `omitted`: type -> count. */
function isCounts(value: unknown): value is Record<string, number> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((n) => typeof n === 'number');
}
