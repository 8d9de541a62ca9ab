import { MeridianError } from '../../lib/errors.js';
import type { Logger } from '../../lib/log.js';
import { formatTs, type Clock } from '../../lib/time.js';
import { errorCode } from './state-files.js';

// A full disk is a state, not a failure of one request: the daemon keeps serving what it has,
// answers writes 503 DISK_FULL, says so in GET /status (and so the console), and records again
// as soon as a write fits, without a restart. Every write path reports here.

/** What GET /status says while the disk is full. */
export interface DiskFull {
  /** When a write first failed for lack of space (ts form). */
  since: string;
  /** The file that write went to. */
  file: string;
  /** `ENOSPC` (no space) or `EDQUOT` (quota used up). */
  code: string;
}

/** Whether an error is a full disk (no space, or the quota used up). */
export function isNoSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** A write that failed, with the file it was writing (a target's day file or one of its side files); its errno code kept. */
export class FileWriteError extends Error {
  readonly file: string;
  readonly code: string | undefined;

  constructor(file: string, cause: unknown) {
    super(`${file}: ${(cause as Error | undefined)?.message ?? String(cause)}`, { cause });
    this.name = 'FileWriteError';
    this.file = file;
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
  }
}

/** The file a failed write was writing when the error says so, else `file`. */
export function failedFile(error: unknown, file: string): string {
  return error instanceof FileWriteError ? error.file : file;
}

/**
 * The 503 of a write that failed: DISK_FULL for lack of space, else STORAGE_UNAVAILABLE.
 * `detail` is the sentence either way; a full disk says so first.
 */
export function writeFailure(error: unknown, detail: string): MeridianError {
  if (isNoSpace(error)) return new MeridianError('DISK_FULL', `The disk is full: ${detail[0]!.toLowerCase()}${detail.slice(1)}`, { cause: error });
  return new MeridianError('STORAGE_UNAVAILABLE', detail, { cause: error });
}

/** The disk's state as the writes of one store found it. */
export class DiskSpace {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private state: DiskFull | undefined;

  constructor(clock: Clock, logger: Logger) {
    this.clock = clock;
    this.logger = logger;
  }

  /** The full-disk state, or undefined while writes fit. */
  get full(): DiskFull | undefined {
    return this.state;
  }

  /** A write to `file` failed: when for lack of space, the disk is full from now on (logged once). */
  failed(file: string, error: unknown): void {
    if (!isNoSpace(error) || this.state) return;
    this.state = { since: formatTs(this.clock.now()), file, code: errorCode(error) };
    this.logger.error(`the disk is full (${this.state.code}) writing ${file}: writes are answered 503 DISK_FULL ` +
      'until one fits again; /current, /history and /stream are still served');
  }

  /** A write fitted: the disk has space again (logged once). */
  wrote(): void {
    if (!this.state) return;
    this.logger.info(`the disk has space again (full since ${this.state.since}): recording again`);
    this.state = undefined;
  }
}
