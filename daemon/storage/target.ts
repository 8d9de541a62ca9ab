import type { BatchJournal, JournalFile } from './batch-journal.js';
import { FileWriteError } from './disk-space.js';
import { LineFile } from './line-file.js';
import { nodeFs, type StorageFs } from './storage-fs.js';

// A storage target's writer: the open file, its seq, and two side files under .meridian/
// that a replay needs and a snapshot makes obsolete: the seqs of readings that must not
// become current (make_current false), and the lines of ephemeral readings
// (store_permanently false), which go to no telemetry file.

/** The two kinds of storage target: the site day files, or the active run's file. */
export type TargetKind = 'site' | 'run';

/** Where a target's side files are. */
export interface SidePaths {
  /** One seq per line: readings posted with make_current false. */
  held: string;
  /** One envelope line per ephemeral reading, since the last snapshot. */
  ephemeral: string;
}

/** One place events are written: the site day file in use or the active run's file. */
export class Target {
  readonly kind: TargetKind;
  readonly sidePaths: SidePaths;
  /** The last seq used in this target (ephemeral readings use seqs too). */
  seq: number;
  private filePath: string;
  private file: LineFile | undefined;
  private held: LineFile | undefined;
  private ephemeral: LineFile | undefined;
  private readonly io: StorageFs;
  /** Where the current file must be cut back to when reopened (a failed write that could not be cut back). */
  private cutTo: number | undefined;
  private readonly journal: BatchJournal | undefined;

  /** `journal`: where a whole batch notes what it writes, so that a crash cannot leave part of it. */
  constructor(kind: TargetKind, filePath: string, seq: number, sidePaths: SidePaths, io: StorageFs = nodeFs, journal?: BatchJournal) {
    this.kind = kind;
    this.filePath = filePath;
    this.seq = seq;
    this.sidePaths = sidePaths;
    this.io = io;
    this.journal = journal;
  }

  /** The path of the file events currently go to. */
  get path(): string {
    return this.filePath;
  }

  /** Byte length of the current file (opening it if needed). */
  get size(): number {
    return this.open().size;
  }

  /** Point the target at another file (site day change); the old one is synced and closed. */
  switchTo(filePath: string, sync: boolean): void {
    if (filePath === this.filePath) return;
    this.close(sync);
    if (this.cutTo !== undefined) {
      // the old file still holds lines never acknowledged: cut them now (best effort)
      try { this.io.truncateSync(this.filePath, this.cutTo); } catch { /* a third failure in a row: those lines stay (answered 503) */ }
      this.cutTo = undefined;
    }
    this.filePath = filePath;
  }

  /** The open writer, opening the file on first use or after a failure closed it. */
  open(): LineFile {
    if (this.file && !this.file.isOpen) this.close(false);
    if (!this.file) {
      this.file = LineFile.open(this.filePath, this.io, this.cutTo);
      this.cutTo = undefined;
    }
    return this.file;
  }

  /**
   * Write whole lines, each given as UTF-8 chunks of whole lines (none: nothing to write): held
   * seqs and ephemeral lines to the side files first, then `lines` to the target's file, each
   * file in one write. On failure nothing stays written; the caller then closes the target
   * (syncing what earlier writes left) so that the next use reopens the files. `whole` (the
   * seqs of a POST /events batch): the batch journal names the files first and is emptied
   * after, so that a crash in between leaves none of it (batch-journal.ts). Returns the
   * target's file, or undefined when `lines` was empty (nothing went to it).
   */
  write(lines: readonly Buffer[], held: readonly Buffer[], ephemeral: readonly Buffer[], whole?: [first: number, last: number]): LineFile | undefined {
    const parts: Array<[LineFile, readonly Buffer[]]> = [];
    if (held.length > 0) parts.push([this.held ??= LineFile.open(this.sidePaths.held, this.io), held]);
    if (ephemeral.length > 0) parts.push([this.ephemeral ??= LineFile.open(this.sidePaths.ephemeral, this.io), ephemeral]);
    const file = lines.length > 0 ? this.open() : undefined;
    if (file) parts.push([file, lines]);
    const journal = whole && this.journal;
    const written: Array<[LineFile, number]> = [];
    try {
      if (journal) journalStep(journal, () => journal.begin(parts.map(([f]): JournalFile => [f.path, f.size]), whole[0], whole[1]));
      for (const [f, chunks] of parts) {
        written.push([f, f.size]);
        try {
          f.append(chunks);
        } catch (error) {
          // the answer and the log name the file that failed, not the target's day file
          throw new FileWriteError(f.path, error);
        }
      }
      if (journal) journalStep(journal, () => journal.commit());
      return file;
    } catch (error) {
      this.undo(written);
      // undone (or, where a cut failed, cut when reopened): later lines must not be cut at a start
      journal?.abandon();
      throw error;
    }
  }

  /**
   * Whether the open file was moved away (or deleted, or replaced) under the daemon: it is
   * then closed (synced), and the next write opens a new file at the path. False otherwise.
   */
  reopenIfMoved(): boolean {
    if (!this.file?.isOpen || !this.file.movedAway) return false;
    this.close(true);
    return true;
  }

  /** false when a failed write could not be cut back (its file was closed): nothing more is written until it is reopened. */
  get writable(): boolean {
    return this.file?.isOpen !== false;
  }

  /** Empty both side files (after a snapshot covered them, or at run start and stop). */
  dropSideFiles(): void {
    this.closeSideFiles();
    LineFile.truncate(this.sidePaths.held, this.io);
    LineFile.truncate(this.sidePaths.ephemeral, this.io);
  }

  /** Sync (unless told not to) and close the files. */
  close(sync: boolean): void {
    if (this.file && sync) {
      try { this.file.syncNow(); } catch { /* the data was written; the OS keeps it */ }
    }
    this.cutTo = this.file?.uncut ?? this.cutTo;
    this.file?.close();
    this.file = undefined;
    this.closeSideFiles();
  }

  private undo(written: Array<[LineFile, number]>): void {
    for (const [file, size] of written) {
      try {
        file.cutTo(size);
      } catch {
        this.closeSideFiles();
      }
    }
  }

  private closeSideFiles(): void {
    this.held?.close();
    this.held = undefined;
    this.ephemeral?.close();
    this.ephemeral = undefined;
  }
}

// a step of the batch journal: a failure names the journal's file (`.meridian/batch.json`), not the target's
function journalStep(journal: BatchJournal, step: () => void): void {
  try {
    step();
  } catch (error) {
    throw new FileWriteError(journal.path, error);
  }
}
