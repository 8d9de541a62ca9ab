import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { GZ } from '../ndjson/names.js';
import type { StorageFs } from './storage-fs.js';
import { openRegularSync } from '../ndjson/regular.js';

// A compressed day or run file made plain again to be appended to (the clock stepped back
// into its day, a stopped run started again): decompressed as a stream on zlib's thread pool
// (never the whole file in memory, never a long block of the event loop), through the
// file-system seam, so that a crash at any point leaves one whole copy.

/** Compressed bytes read per slice. */
const SLICE = 256 * 1024;

/** Whether `file` is there only compressed (its `.gz`, to be made plain before it is appended to). */
export function onlyCompressed(file: string, io: StorageFs): boolean {
  return io.statSync(file, { throwIfNoEntry: false }) === undefined && io.statSync(file + GZ, { throwIfNoEntry: false }) !== undefined;
}

/**
 * Turn `<file>.gz` back into `<file>`: decompressed into `<file>.restore.tmp`, synced, renamed
 * to `<file>` (the directory synced), then the `.gz` removed (the directory synced). A crash
 * before the rename leaves the `.gz` (and a temp file no reader takes); after it, both whole
 * copies (readers take the plain one). A `.gz` that does not decompress whole rejects (the
 * temp file removed, the `.gz` left as it is).
 */
export async function restorePlain(file: string, io: StorageFs): Promise<void> {
  const tmp = `${file}.restore.tmp`;
  const out = io.openSync(tmp, 'w');
  try {
    await pipeline(slicesOf(file + GZ, io), zlib.createGunzip(), async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) writeAll(io, out, chunk);
    });
    io.fsyncSync(out);
    io.closeSync(out);
    io.renameSync(tmp, file);
  } catch (error) {
    try { io.closeSync(out); } catch { /* closed before the rename failed */ }
    io.rmSync(tmp, { force: true });
    throw error;
  }
  syncDir(path.dirname(file), io);
  io.rmSync(file + GZ);
  syncDir(path.dirname(file), io);
}

/** The bytes of a file a slice at a time (each read a short one, the loop free in between). */
async function* slicesOf(file: string, io: StorageFs): AsyncGenerator<Buffer> {
  const fd = openRegularSync(file, io);
  try {
    for (let pos = 0; ;) {
      const buf = Buffer.allocUnsafe(SLICE);
      const n = io.readSync(fd, buf, 0, SLICE, pos);
      if (n <= 0) return;
      pos += n;
      yield buf.subarray(0, n);
    }
  } finally {
    io.closeSync(fd);
  }
}

function writeAll(io: StorageFs, fd: number, chunk: Buffer): void {
  for (let off = 0; off < chunk.length;) off += io.writeSync(fd, chunk, off, chunk.length - off);
}

function syncDir(dir: string, io: StorageFs): void {
  const fd = io.openSync(dir, 'r');
  try {
    io.fsyncSync(fd);
  } finally {
    io.closeSync(fd);
  }
}

/** Decompressions under way, one per file: callers for the same file share it (kept by their owner). */
export class Restorations {
  private readonly underway = new Map<string, Promise<void>>();

  /**
   * The decompression of `file` when it is there only compressed (started now, or the one under
   * way); undefined when it needs none. `settle` is applied once, to the one that starts (to log
   * it, to turn a failure into the error every waiter gets).
   */
  of(file: string, io: StorageFs, settle: (restored: Promise<void>) => Promise<void> = (restored) => restored): Promise<void> | undefined {
    const held = this.underway.get(file);
    if (held) return held;
    if (!onlyCompressed(file, io)) return undefined;
    const done = settle(restorePlain(file, io)).finally(() => this.underway.delete(file));
    this.underway.set(file, done);
    return done;
  }
}
