import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../lib/log.js';
import type { Clock } from '../../lib/time.js';
import { listDataFiles } from '../ndjson/listing.js';
import { GZ, plainName } from '../ndjson/names.js';
import { compressFile, finishInterrupted, isSingleMember, recompressFile } from './compressed.js';
import { CompressionAbandoned } from './member-writer.js';

// Retention and compression of closed data files (--compress-after, --retain): closed day
// files and the files of stopped runs, by age; never what is in use or not yet delivered.

const DEFAULT_INTERVAL_MS = 60 * 60 * 1000;

/** What housekeeping is given. */
export interface HousekeepingOptions {
  siteDir: string;
  /** Gzip files older than this (ms since last written); undefined: never. */
  compressAfterMs: number | undefined;
  /** Delete files older than this; undefined: never. */
  retainMs: number | undefined;
  clock: Clock;
  logger: Logger;
  /** The plain paths in use now (the active day file, today's, the active run's): never touched. */
  inUse: () => readonly string[];
  /**
   * Whether a forwarder still has to deliver (part of) a file, by its plain path: such a
   * file is neither compressed nor deleted. Forwarders answer it; without them nothing is held.
   */
  heldBack?: (file: string) => boolean;
  /** Told of every file retention deletes (the store notes a run's as removed, not missing). */
  onDeleted?: (file: string) => void;
  /** How often a pass runs (default hourly; 0: only when runOnce is called). */
  intervalMs?: number;
}

/** What one pass did, by stored path. */
export interface HousekeepingReport {
  compressed: string[];
  deleted: string[];
  /** Files left alone because they are in use or held back by a forwarder. */
  protected: string[];
  failed: string[];
  /** Plain files left uncompressed because a .gz beside them is no whole copy of them (both kept). */
  kept: string[];
  /** Why retention deleted nothing this pass although files were past --retain (the clock looked wrong); undefined when it ran. */
  retentionSkipped?: string;
}

/** Runs passes at start, then every interval; one pass at a time. */
export class Housekeeping {
  private readonly opts: HousekeepingOptions;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<HousekeepingReport> | undefined;
  private stopped = false;
  // per plain file, why the .gz beside it is no whole copy (both kept): found again by every pass, logged once
  private keptBoth = new Map<string, string>();

  constructor(opts: HousekeepingOptions) {
    this.opts = opts;
  }

  /** Run a first pass now and then every interval. */
  start(): void {
    void this.runOnce();
    const interval = this.opts.intervalMs ?? DEFAULT_INTERVAL_MS;
    if (interval > 0) {
      this.timer = setInterval(() => void this.runOnce(), interval);
      this.timer.unref();
    }
  }

  /** One pass (joins the pass under way, if any). Never rejects: failures are logged and reported. */
  runOnce(): Promise<HousekeepingReport> {
    this.running ??= this.pass().finally(() => { this.running = undefined; });
    return this.running;
  }

  /** Stop the timer and wait for the pass under way, which abandons a compression between two members (a bounded stop). */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** The .gz files kept beside their plain file (no whole copy of it), with why: /status lists them under `damaged`. */
  keptFiles(): { file: string; reason: string }[] {
    return [...this.keptBoth].map(([plain, why]) => ({ file: plain + GZ, reason: keptReason(why) }));
  }

  /**
   * Finish interrupted compressions in every directory holding data files; a .gz that is no
   * whole copy of the plain file beside it keeps both (noted, logged when first found).
   */
  private async finishAll(): Promise<void> {
    const { siteDir, logger } = this.opts;
    const kept = new Map<string, string>();
    for (const dir of new Set([siteDir, ...listDataFiles(siteDir).map((f) => path.dirname(f.file))])) {
      const done = await finishInterrupted(dir, (plain) => this.opts.inUse().includes(plain), (plain, why) => kept.set(plain, why));
      for (const file of done) {
        logger.warn(file.endsWith('.tmp') ? `removed ${file}, a temp file an interrupted compression left (the file it was made from is kept)`
          : `finished an interrupted compression: removed ${file} (the .gz beside it is its whole copy)`);
      }
    }
    for (const [plain, why] of kept) if (this.keptBoth.get(plain) !== why) logger.warn(`${plain}${GZ}: ${keptReason(why)}`);
    this.keptBoth = kept;
  }

  /**
   * Whether retention may delete this pass. When even the newest data file is past --retain,
   * either nothing was recorded for the whole window or the clock jumped ahead (a bad clock at
   * boot): deleting would empty the site directory, so nothing is deleted and the log says why
   * (docs/storage.md). Once a reading is recorded again its file is new and retention resumes.
   */
  private retainable(entries: readonly { mtimeMs: number }[], report: HousekeepingReport): boolean {
    const { retainMs, clock, logger } = this.opts;
    if (retainMs === undefined || entries.length === 0) return true;
    const newestAge = clock.now() - Math.max(...entries.map((e) => e.mtimeMs));
    if (newestAge <= retainMs) return true;
    report.retentionSkipped = `every data file is older than --retain (the newest was written ${Math.floor(newestAge / 86_400_000)} day(s) ago): `
      + 'the clock may be wrong; nothing deleted';
    logger.warn(`retention: ${report.retentionSkipped}`);
    return false;
  }

  private async pass(): Promise<HousekeepingReport> {
    const { siteDir, compressAfterMs, retainMs, logger } = this.opts;
    const report: HousekeepingReport = { compressed: [], deleted: [], protected: [], failed: [], kept: [] };
    await this.finishAll();
    const entries = listDataFiles(siteDir);
    const retain = this.retainable(entries, report);
    for (const entry of entries) {
      if (this.stopped) break;
      const plain = plainName(entry.file);
      if (this.opts.inUse().includes(plain) || this.opts.heldBack?.(plain)) {
        report.protected.push(entry.file);
        continue;
      }
      const age = this.opts.clock.now() - entry.mtimeMs;
      try {
        if (retain && retainMs !== undefined && age > retainMs) {
          fs.unlinkSync(entry.file);
          report.deleted.push(entry.file);
          this.opts.onDeleted?.(entry.file);
          logger.info(`retention: deleted ${entry.file} (${entry.bytes} bytes)`);
        } else if (entry.file.endsWith(GZ) && compressAfterMs !== undefined && isSingleMember(entry.file)) {
          await recompressFile(entry.file, { stopped: () => this.stopped });
          report.compressed.push(entry.file);
          logger.info(`recompressed ${entry.file} as indexed members (${entry.bytes} bytes -> ${fs.statSync(entry.file).size})`);
        } else if (compressAfterMs !== undefined && age > compressAfterMs && !entry.file.endsWith(GZ) && fs.existsSync(plain + GZ)) {
          report.kept.push(entry.file); // a .gz no whole copy of it is beside it: never written over
        } else if (compressAfterMs !== undefined && age > compressAfterMs && !entry.file.endsWith(GZ)) {
          await compressFile(entry.file, { stillClosed: () => !this.opts.inUse().includes(plain), stopped: () => this.stopped });
          report.compressed.push(entry.file);
          logger.info(`compressed ${entry.file} (${entry.bytes} bytes -> ${fs.statSync(entry.file + GZ).size})`);
        }
      } catch (error) {
        if (error instanceof CompressionAbandoned) {
          logger.info(error.message);
          break;
        }
        report.failed.push(entry.file);
        logger.error(`housekeeping of ${entry.file} failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); it is left as it was`);
      }
    }
    return report;
  }
}

/** How a .gz kept beside its plain file is reported (the log once, /status). */
function keptReason(why: string): string {
  return `no whole copy of the plain file beside it (${why}): both kept, the plain file is the one read; nothing is compressed over it until one of the two is removed`;
}
