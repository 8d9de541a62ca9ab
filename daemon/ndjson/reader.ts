import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { walkMembers, type Member, type MemberList } from './gzip-members.js';
import { isCompressed } from './names.js';
import { LineSplitter, type OnLine } from './splitter.js';

// The one asynchronous reader of the recorded files: whole lines in a range of a file's
// plain bytes, whatever it is stored as. A plain file is read in bounded slices (each one
// read off the event loop and one pass over its lines); a gzip file of indexed members has
// only the members its range touches decompressed; an older single-member gzip is
// decompressed as a stream from its start. Damage (a member that does not decompress, a
// truncated or empty gzip) is noted, not thrown: the rest of the file is read.

/** Bytes read and processed per slice of a plain file. */
export const SLICE_BYTES = 256 * 1024;

const gunzip = promisify(zlib.gunzip);

/** Member lists of compressed files, kept by their reader's owner (a file replaced gets a new one). */
export class MemberCache {
  private readonly lists = new Map<string, { key: string; list: MemberList }>();

  /** The cached list of `file` as it is now (`stat`), or undefined. */
  get(file: string, stat: Stats): MemberList | undefined {
    const held = this.lists.get(file);
    return held && held.key === keyOf(stat) ? held.list : undefined;
  }

  set(file: string, stat: Stats, list: MemberList): void {
    this.lists.set(file, { key: keyOf(stat), list });
  }
}

/** An open recorded file, read by ranges of its plain bytes. */
export class RecordedFile {
  readonly file: string;
  /** Plain bytes of whole members or of the plain file; undefined for a single-member gzip (known once read). */
  readonly size: number | undefined;
  /** The file's identity on disk (device and inode): another one means the file was replaced. */
  readonly identity: string;
  private readonly handle: fs.FileHandle;
  private readonly list: MemberList | undefined;
  private readonly damages: string[] = [];
  // the slice buffer, kept for the next read of a file held open (held.ts); taken while a read uses it
  private scratch: Buffer | undefined;

  private constructor(file: string, handle: fs.FileHandle, stat: Stats, size: number | undefined, list: MemberList | undefined) {
    this.file = file;
    this.identity = `${stat.dev}:${stat.ino}`;
    this.handle = handle;
    this.size = size;
    this.list = list;
    if (list?.damage) this.damages.push(list.damage);
  }

  /** Open a file as stored (ENOENT and other open errors are thrown: the caller decides what a missing file means). */
  static async open(file: string, cache?: MemberCache): Promise<RecordedFile> {
    const handle = await fs.open(file, 'r');
    try {
      const stat = await handle.stat();
      if (!isCompressed(file)) return new RecordedFile(file, handle, stat, stat.size, undefined);
      let list = cache?.get(file, stat);
      if (!list) {
        list = await membersOf(handle, stat.size);
        cache?.set(file, stat, list);
      }
      return new RecordedFile(file, handle, stat, list.indexed ? list.plainBytes : undefined, list);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** What was found damaged so far (reasons), empty when nothing was. */
  get damage(): readonly string[] {
    return this.damages;
  }

  /**
   * Call `onLine` for every whole line in [from, to) of the plain bytes (`from` must be a
   * line's start); a line not ended before `to` is left out. `stop()` is asked between
   * slices. Resolves the offset after the last whole line read.
   */
  async read(from: number, to: number, onLine: OnLine, stop: () => boolean = () => false): Promise<number> {
    if (!this.list) return this.readPlain(from, to, onLine, stop);
    if (!this.list.indexed) return this.readStream(from, to, onLine, stop);
    return this.readMembers(this.list.members, from, to, onLine, stop);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private async readPlain(from: number, to: number, onLine: OnLine, stop: () => boolean): Promise<number> {
    const splitter = new LineSplitter(from, onLine);
    const buf = this.scratch ?? Buffer.allocUnsafe(SLICE_BYTES);
    this.scratch = undefined;
    try {
      for (let pos = from; pos < to && !stop();) {
        const { bytesRead } = await this.handle.read(buf, 0, Math.min(SLICE_BYTES, to - pos), pos);
        if (bytesRead <= 0) break;
        pos += bytesRead;
        splitter.push(buf.subarray(0, bytesRead));
      }
    } finally {
      // the lines are copies: the buffer is free again
      this.scratch = buf;
    }
    return splitter.end;
  }

  private async readMembers(members: Member[], from: number, to: number, onLine: OnLine, stop: () => boolean): Promise<number> {
    let end = from;
    for (const m of members) {
      if (m.plainOffset + m.plainBytes <= from) continue;
      if (m.plainOffset >= to || stop()) break;
      const plain = await this.member(m);
      if (!plain) continue;
      const first = Math.max(from, m.plainOffset) - m.plainOffset;
      const last = Math.min(to, m.plainOffset + m.plainBytes) - m.plainOffset;
      const splitter = new LineSplitter(m.plainOffset + first, onLine);
      splitter.push(plain.subarray(first, last));
      end = splitter.end;
    }
    return end;
  }

  /** The plain bytes of one member, or undefined (noted as damage) when it does not decompress to its size. */
  private async member(m: Member): Promise<Buffer | undefined> {
    const raw = Buffer.allocUnsafe(m.bytes);
    const { bytesRead } = await this.handle.read(raw, 0, m.bytes, m.offset);
    try {
      const plain = await gunzip(raw.subarray(0, bytesRead));
      if (plain.length === m.plainBytes) return plain;
      this.damages.push(`its member at byte ${m.offset} holds ${plain.length} bytes, not ${m.plainBytes}`);
    } catch (error) {
      this.damages.push(`its member at byte ${m.offset} does not decompress (${(error as Error).message})`);
    }
    return undefined;
  }

  /** Whether the gzip trailer (the last 4 bytes: the plain length mod 2^32) matches what was decompressed. */
  private async trailerSays(plainBytes: number): Promise<boolean> {
    const { size } = await this.handle.stat();
    const tail = Buffer.alloc(4);
    const { bytesRead } = await this.handle.read(tail, 0, 4, Math.max(0, size - 4));
    return bytesRead === 4 && tail.readUInt32LE(0) === plainBytes % 2 ** 32;
  }

  private async readStream(from: number, to: number, onLine: OnLine, stop: () => boolean): Promise<number> {
    const splitter = new LineSplitter(0, (line, start, end) => {
      if (start >= from && end <= to) onLine(line, start, end);
    });
    // read through the handle (a stream of the handle would keep it from closing when left early)
    const source = Readable.from(slicesOf(this.handle));
    // a truncated file gives all it holds (a sync flush at its end); the trailer's length says it was cut
    const stream = source.pipe(zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH }));
    let plainBytes = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        plainBytes += chunk.length;
        splitter.push(chunk);
        if (stop() || splitter.end >= to) return Math.min(splitter.end, to);
      }
      if (!await this.trailerSays(plainBytes)) this.damages.push(`truncated: it ends after ${plainBytes} bytes of its lines`);
    } catch (error) {
      this.damages.push(`it does not decompress past byte ${splitter.end} of its lines (${(error as Error).message})`);
    } finally {
      source.destroy();
      stream.destroy();
    }
    return Math.min(splitter.end, to);
  }
}

/** The bytes of a file from its start, a slice at a time. */
async function* slicesOf(handle: fs.FileHandle): AsyncGenerator<Buffer> {
  for (let pos = 0; ;) {
    const buf = Buffer.allocUnsafe(SLICE_BYTES);
    const { bytesRead } = await handle.read(buf, 0, SLICE_BYTES, pos);
    if (bytesRead <= 0) return;
    pos += bytesRead;
    yield buf.subarray(0, bytesRead);
  }
}

/** The member list of an open compressed file. */
async function membersOf(handle: fs.FileHandle, size: number): Promise<MemberList> {
  const walk = walkMembers(size);
  const buf = Buffer.alloc(64);
  for (let step = walk.next(); ; ) {
    if (step.done) return step.value;
    const { bytesRead } = await handle.read(buf, 0, step.value.len, step.value.pos);
    step = walk.next(buf.subarray(0, bytesRead));
  }
}

function keyOf(stat: Stats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}
