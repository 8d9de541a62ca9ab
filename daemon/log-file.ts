import fs from 'node:fs';
import path from 'node:path';
import { makeDirectory } from '../lib/directories.js';
import { LineWriter, type LogDrops } from './log-stderr.js';

// The daemon's own log file: appended to, and reopened on request (SIGHUP) so that
// logrotate can move it away and the daemon goes on in a fresh file of the same name.

/** An append-only log file that can be reopened under its name. */
export class LogFile {
  readonly path: string;
  private fd: number;
  private readonly lines: LineWriter;

  /** Open (creating it and its directory if needed, one level at a time: a recursive mkdir never ends under /proc) for appending; throws when it cannot. */
  constructor(file: string, drops?: LogDrops) {
    this.path = path.resolve(file);
    this.lines = new LineWriter(drops);
    makeDirectory(path.dirname(this.path));
    this.fd = fs.openSync(this.path, 'a');
  }

  /** Append one or more whole lines. A failed write is dropped: logging never stops the daemon. */
  write(text: string): void {
    // a full disk: the line is lost (counted), the daemon goes on; a torn one is ended before the next
    this.lines.write(this.fd, text);
  }

  /** Open the file under its name again (after logrotate moved it); the old descriptor is closed. Returns an error message when it cannot. */
  reopen(): string | undefined {
    let fd: number;
    try {
      fd = fs.openSync(this.path, 'a');
    } catch (error) {
      return `cannot reopen the log file ${this.path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); still writing to the old one`;
    }
    const old = this.fd;
    this.fd = fd;
    fs.closeSync(old);
    return undefined;
  }

  close(): void {
    try { fs.closeSync(this.fd); } catch { /* already closed */ }
  }
}
