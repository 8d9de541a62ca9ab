import { wholeLinesEnd } from '../ndjson/ends.js';
import { nodeFs, type StorageFs } from './storage-fs.js';
import { APPEND_FLAGS, openRegularSync } from '../ndjson/regular.js';

// One append-only NDJSON file: whole lines in, or nothing; synced with group commit.

// fdatasync rounds of one file that may run at once (the kernel's journal queues them)
const MAX_RUNNING = 2;
const QUEUED = -1;

/** One fdatasync of a file: `gen` is how many appends it covers (QUEUED until it starts). */
interface SyncRound {
  gen: number;
  /** The file's length when it started (what it covers). */
  bytes: number;
  done: Promise<void>;
}

/** An open append-only file that either writes a whole line or leaves the file as it was. */
export class LineFile {
  readonly path: string;
  private readonly io: StorageFs;
  private fd: number | undefined;
  private bytes: number;
  /** Appends so far, and how many of them are known to be on stable storage. */
  private written = 0;
  private synced = 0;
  /** The length known to be on stable storage. */
  private syncedBytes: number;
  /** The newest sync round (running or queued) and how many run. */
  private newest: SyncRound | undefined;
  private running = 0;
  private queued: (() => void) | undefined;
  /** The descriptor to close once the running rounds are done (closed while syncing). */
  private closeWhenIdle: number | undefined;
  private roundsStarted = 0;
  private uncutLength: number | undefined;

  private constructor(file: string, io: StorageFs, fd: number, size: number) {
    this.path = file;
    this.io = io;
    this.fd = fd;
    this.bytes = size;
    this.syncedBytes = size;
  }

  /**
   * Open (creating if needed) for appending. `cutTo`: the length the file had before a failed
   * write whose cut-back failed too (see `uncut`): what lies past it was never acknowledged
   * and is cut off first. A partial line at the end is cut off in any case, so that the next
   * line is whole.
   */
  static open(file: string, io: StorageFs = nodeFs, cutTo?: number): LineFile {
    const fd = openRegularSync(file, io, APPEND_FLAGS);
    try {
      let size = io.fstatSync(fd).size;
      if (cutTo !== undefined && cutTo < size) {
        io.ftruncateSync(fd, cutTo);
        size = cutTo;
      }
      const whole = size > 0 ? wholeLinesEnd(file, size) : 0;
      if (whole < size) {
        io.ftruncateSync(fd, whole);
        size = whole;
      }
      return new LineFile(file, io, fd, size);
    } catch (error) {
      io.closeSync(fd);
      throw error;
    }
  }

  /** Whether the open file is no longer the one at its path (moved away, deleted or replaced); false when it cannot tell. */
  get movedAway(): boolean {
    if (this.fd === undefined) return false;
    let open: { ino: number; dev: number };
    try {
      open = this.io.fstatSync(this.fd);
    } catch {
      return false;
    }
    try {
      const named = this.io.statSync(this.path);
      return named.ino !== open.ino || named.dev !== open.dev;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT';
    }
  }

  /** Empty a file if it exists (ignores a missing one). */
  static truncate(file: string, io: StorageFs = nodeFs): void {
    try {
      io.truncateSync(file, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  /** The length to cut the file back to when it is reopened: set when a failed write could not be cut back. */
  get uncut(): number | undefined {
    return this.uncutLength;
  }

  /** false once closed (also by a failed write whose cut-back failed). */
  get isOpen(): boolean {
    return this.fd !== undefined;
  }

  /** Byte length of the file as this writer knows it. */
  get size(): number {
    return this.bytes;
  }

  /**
   * Hand `text` (one or more whole lines, or their UTF-8 chunks in order) to the operating
   * system in one write. On any failure the file is cut back to its previous length and the
   * error is rethrown: no torn line stays.
   */
  append(text: string | readonly Buffer[]): void {
    if (this.fd === undefined) throw new Error(`${this.path} is closed`);
    const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text.length === 1 ? text[0]! : Buffer.concat(text);
    let done = 0;
    try {
      while (done < buf.length) done += this.io.writeSync(this.fd, buf, done, buf.length - done);
    } catch (error) {
      if (done > 0) {
        try {
          this.io.ftruncateSync(this.fd, this.bytes);
        } catch {
          // what was written stays: nothing more is appended after it; reopening cuts it (open)
          this.uncutLength = this.bytes;
          this.close();
        }
      }
      throw error;
    }
    this.bytes += buf.length;
    this.written++;
  }

  /** Cut the file back to `size` bytes (undo an append the caller cannot complete). */
  cutTo(size: number): void {
    if (this.fd === undefined || size >= this.bytes) return;
    this.io.ftruncateSync(this.fd, size);
    this.bytes = size;
  }

  /** Bytes written but not yet known to be on stable storage. */
  get unsyncedBytes(): number {
    return this.bytes - this.syncedBytes;
  }

  /** How many sync rounds were started or queued (each is one fdatasync), for tests and benchmarks. */
  get rounds(): number {
    return this.roundsStarted;
  }

  /**
   * Resolves once every line appended before the call is on stable storage (fdatasync: the
   * data and the file size needed to read it back, not the timestamps). Group commit:
   * callers join a round that already covers their lines; a new round starts at once while
   * fewer than MAX_RUNNING run, so the kernel overlaps them; past that one round is queued,
   * and it covers everything written until it starts. No-op when all is synced.
   */
  sync(): Promise<void> {
    const want = this.written;
    if (want <= this.synced) return Promise.resolve();
    const newest = this.newest;
    if (newest && (newest.gen === QUEUED || newest.gen >= want)) return newest.done;
    return this.newRound();
  }

  /** Synchronous flush, for shutdown and snapshot paths. */
  syncNow(): void {
    if (this.fd === undefined || this.written <= this.synced) return;
    const gen = this.written;
    const bytes = this.bytes;
    this.io.fdatasyncSync(this.fd);
    this.synced = Math.max(this.synced, gen);
    this.syncedBytes = Math.max(this.syncedBytes, bytes);
  }

  private newRound(): Promise<void> {
    this.roundsStarted++;
    const round: SyncRound = { gen: QUEUED, bytes: 0, done: undefined as unknown as Promise<void> };
    let begin!: () => void;
    round.done = new Promise<void>((resolve, reject) => {
      begin = () => {
        const fd = this.fd;
        if (fd === undefined) {
          // closed while queued: the close synced it, unless that sync failed
          if (this.written <= this.synced) return resolve();
          return reject(new Error(`${this.path} was closed before it could be synced`));
        }
        round.gen = this.written;
        round.bytes = this.bytes;
        this.running++;
        this.io.fdatasync(fd, (error) => {
          this.running--;
          if (!error) {
            this.synced = Math.max(this.synced, round.gen);
            this.syncedBytes = Math.max(this.syncedBytes, round.bytes);
          }
          if (this.running === 0 && this.closeWhenIdle !== undefined) this.closeNow();
          const next = this.queued;
          this.queued = undefined;
          next?.();
          if (error) reject(error); else resolve();
        });
      };
    });
    this.newest = round;
    if (this.running < MAX_RUNNING) begin(); else this.queued = begin;
    return round.done;
  }

  /** Close the file; safe to call twice. A sync still running keeps the descriptor until it is done. */
  close(): void {
    if (this.fd === undefined) return;
    this.closeWhenIdle = this.fd;
    this.fd = undefined;
    if (this.running === 0) this.closeNow();
  }

  private closeNow(): void {
    const fd = this.closeWhenIdle!;
    this.closeWhenIdle = undefined;
    try { this.io.closeSync(fd); } catch { /* already gone */ }
  }
}
