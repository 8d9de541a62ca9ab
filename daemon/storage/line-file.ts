import fs from 'node:fs';

// One append-only NDJSON file: whole lines in, or nothing.

/** An open append-only file that either writes a whole line or leaves the file as it was. */
export class LineFile {
  readonly path: string;
  private fd: number | undefined;
  private bytes: number;
  private dirty = false;

  private constructor(file: string, fd: number, size: number) {
    this.path = file;
    this.fd = fd;
    this.bytes = size;
  }

  /** Open (creating if needed) for appending; `size` is the file's current length. */
  static open(file: string): LineFile {
    const fd = fs.openSync(file, 'a');
    try {
      return new LineFile(file, fd, fs.fstatSync(fd).size);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  /** Empty a file if it exists (ignores a missing one). */
  static truncate(file: string): void {
    try {
      fs.truncateSync(file, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  /** Byte length of the file as this writer knows it. */
  get size(): number {
    return this.bytes;
  }

  /**
   * Hand `text` (one or more whole lines) to the operating system. On any failure the file
   * is cut back to its previous length and the error is rethrown: no torn line stays.
   */
  append(text: string): void {
    if (this.fd === undefined) throw new Error(`${this.path} is closed`);
    const buf = Buffer.from(text, 'utf8');
    let done = 0;
    try {
      while (done < buf.length) done += fs.writeSync(this.fd, buf, done, buf.length - done);
    } catch (error) {
      if (done > 0) {
        try { fs.ftruncateSync(this.fd, this.bytes); } catch { /* the caller reopens the file */ }
      }
      throw error;
    }
    this.bytes += buf.length;
    this.dirty = true;
  }

  /** Cut the file back to `size` bytes (undo an append the caller cannot complete). */
  cutTo(size: number): void {
    if (this.fd === undefined || size >= this.bytes) return;
    fs.ftruncateSync(this.fd, size);
    this.bytes = size;
  }

  /**
   * Flush written lines to stable storage (no-op when nothing was written since the last sync).
   * fdatasync: the data and the file size needed to read it back, not the timestamps.
   */
  async sync(): Promise<void> {
    if (this.fd === undefined || !this.dirty) return;
    this.dirty = false;
    const fd = this.fd;
    await new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  }

  /** Synchronous flush, for shutdown paths. */
  syncNow(): void {
    if (this.fd === undefined || !this.dirty) return;
    this.dirty = false;
    fs.fdatasyncSync(this.fd);
  }

  /** Close the file; safe to call twice. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try { fs.closeSync(fd); } catch { /* already gone */ }
  }
}
