import type { Logger } from '../../lib/log.js';
import type { SitePlaces } from './site-places.js';
import { errorCode } from './state-files.js';
import type { StorageFs } from './storage-fs.js';

// A whole batch (POST /events) is every line or none, also across a crash: before its lines
// are written, `.meridian/batch.json` names every file it writes and where each one ended;
// once they are written the journal is emptied (the commit point). A start that finds the
// journal not empty cuts those files back: the daemon died while writing the batch, and it
// was never acknowledged. See docs/storage.md, "Batches across a crash".

/** A file a batch writes, and its length before the batch. */
export type JournalFile = [file: string, length: number];

/** What the journal holds while a batch is written. */
interface JournalEntry {
  files: JournalFile[];
  first_seq: number;
  last_seq: number;
}

/** The batch journal of one store (one batch is written at a time: its write is synchronous). */
export class BatchJournal {
  private readonly file: string;
  private readonly io: StorageFs;
  private fd: number | undefined;

  constructor(file: string, io: StorageFs) {
    this.file = file;
    this.io = io;
  }

  /** The journal's file (named when it cannot be written). */
  get path(): string {
    return this.file;
  }

  /** Note the batch about to be written (throws when it cannot: then nothing of the batch may be written). */
  begin(files: JournalFile[], firstSeq: number, lastSeq: number): void {
    const entry: JournalEntry = { files, first_seq: firstSeq, last_seq: lastSeq };
    const buf = Buffer.from(`${JSON.stringify(entry)}\n`, 'utf8');
    // 'w' once: the journal was settled (read and emptied) at start-up, before the store opened it
    const fd = this.fd ??= this.io.openSync(this.file, 'w');
    for (let done = 0; done < buf.length;) {
      const n = this.io.writeSync(fd, buf, done, buf.length - done, done);
      if (!(n > 0)) throw Object.assign(new Error(`short write to ${this.file}`), { code: 'EIO' });
      done += n;
    }
  }

  /** The batch is written whole: empty the journal (throws when it cannot; the caller then undoes the batch). */
  commit(): void {
    if (this.fd !== undefined) this.io.ftruncateSync(this.fd, 0);
  }

  /** The batch was undone after a failure: empty the journal however it can be (best effort). */
  abandon(): void {
    try {
      this.commit();
    } catch {
      this.close();
      try { this.io.rmSync(this.file, { force: true }); } catch { /* the next begin rewrites it */ }
    }
  }

  /** Close the journal file. */
  close(): void {
    if (this.fd === undefined) return;
    try { this.io.closeSync(this.fd); } catch { /* already gone */ }
    this.fd = undefined;
  }
}

/**
 * At start-up, before anything is replayed: when the journal names a batch, the daemon died
 * while writing it; cut each of its files back to its length before the batch (a file that is
 * gone or shorter is left alone) and empty the journal. A journal that is not a whole entry
 * was torn before the batch's first line was written: it is emptied. Logged either way.
 */
export function settleBatchJournal(file: string, logger: Logger, io: StorageFs, places: SitePlaces): void {
  let raw: string;
  try {
    raw = io.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.error(`batch journal ${file} cannot be read (${errorCode(error)})`);
    return;
  }
  if (raw === '') return;
  const entry = parseEntry(raw);
  if (!entry) {
    logger.warn(`batch journal ${file} holds a torn entry (the daemon stopped before writing the batch); nothing to cut`);
  } else {
    // a file of the site directory where it is now: a copy's journal never cuts the original's files
    for (const [target, length] of entry.files) cutBack(places.place(target), length, entry, logger, io);
  }
  try {
    io.truncateSync(file, 0);
  } catch (error) {
    logger.error(`could not empty the batch journal ${file} (${errorCode(error)})`);
  }
}

function cutBack(target: string, length: number, entry: JournalEntry, logger: Logger, io: StorageFs): void {
  let size: number;
  try {
    size = io.statSync(target).size;
  } catch {
    return; // gone (moved away, compressed): nothing of the batch to cut there
  }
  if (size <= length) return;
  try {
    io.truncateSync(target, length);
    logger.warn(`${target}: cut ${size - length} byte(s) of an unfinished batch (seqs ${entry.first_seq}..${entry.last_seq}) at byte ${length}: ` +
      'the daemon stopped while writing it and never acknowledged it');
  } catch (error) {
    logger.error(`${target}: could not cut an unfinished batch (seqs ${entry.first_seq}..${entry.last_seq}) at byte ${length} (${errorCode(error)})`);
  }
}

function parseEntry(raw: string): JournalEntry | undefined {
  try {
    const entry = JSON.parse(raw) as JournalEntry;
    const whole = Array.isArray(entry.files) && entry.files.every((f) => Array.isArray(f) && typeof f[0] === 'string' && Number.isSafeInteger(f[1]) && f[1] >= 0);
    return whole && Number.isSafeInteger(entry.first_seq) && Number.isSafeInteger(entry.last_seq) ? entry : undefined;
  } catch {
    return undefined;
  }
}
