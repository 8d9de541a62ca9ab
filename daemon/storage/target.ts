import { LineFile } from './line-file.js';
import { nodeFs, type StorageFs } from './storage-fs.js';

// A storage target's writer: the open file, its seq, and the held-seq side file.

/** The two kinds of storage target: the site day files, or the active run's file. */
export type TargetKind = 'site' | 'run';

/** One place events are written: the site day file in use or the active run's file. */
export class Target {
  readonly kind: TargetKind;
  /** The last seq written to this target. */
  seq: number;
  private filePath: string;
  private file: LineFile | undefined;
  private readonly heldPath: string;
  private held: LineFile | undefined;
  private readonly io: StorageFs;

  constructor(kind: TargetKind, filePath: string, seq: number, heldPath: string, io: StorageFs = nodeFs) {
    this.kind = kind;
    this.filePath = filePath;
    this.seq = seq;
    this.heldPath = heldPath;
    this.io = io;
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
    this.filePath = filePath;
  }

  /** The open writer, opening the file on first use or after a failure closed it. */
  open(): LineFile {
    this.file ??= LineFile.open(this.filePath, this.io);
    return this.file;
  }

  /**
   * Write whole envelope lines (and, for held readings, their seqs to the side file first,
   * `held` being one seq per line or empty). On failure nothing stays written; the caller
   * then closes the target (syncing what earlier writes left) so that the next use reopens
   * the files.
   */
  write(lines: string, held: string): LineFile {
    let heldFile: LineFile | undefined;
    let heldSize = 0;
    try {
      if (held) {
        heldFile = this.held ??= LineFile.open(this.heldPath, this.io);
        heldSize = heldFile.size;
        heldFile.append(held);
      }
      const file = this.open();
      file.append(lines);
      return file;
    } catch (error) {
      try {
        heldFile?.cutTo(heldSize);
      } catch {
        this.held?.close();
        this.held = undefined;
      }
      throw error;
    }
  }

  /** Forget every held seq (after a snapshot covered them, or at run start/stop). */
  dropHeld(): void {
    this.held?.close();
    this.held = undefined;
    LineFile.truncate(this.heldPath, this.io);
  }

  /** Sync (unless told not to) and close the files. */
  close(sync: boolean): void {
    if (this.file && sync) {
      try { this.file.syncNow(); } catch { /* the data was written; the OS keeps it */ }
    }
    this.file?.close();
    this.file = undefined;
    this.held?.close();
    this.held = undefined;
  }
}
