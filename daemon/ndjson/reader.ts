import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { inflateMember } from './gzip-inflate.js';
import { joinsNext, tornMember, walkMembers, type Member, type MemberList } from './gzip-members.js';
import { isCompressed } from './names.js';
import { LineSplitter, type OnLine } from './splitter.js';
import { openRegular } from './regular.js';

// The one asynchronous reader of the recorded files: whole lines in a range of a file's
// plain bytes, whatever it is stored as. A plain file is read in bounded slices (each one
// read off the event loop and one pass over its lines); a gzip file of indexed members has
// only the members its range touches decompressed; a member without the `Md` field (a gzip
// made by hand or by an earlier version, a field damaged) is decompressed as a stream from its
// start. Damage (a member that does not decompress, bytes between members, a truncated or
// empty gzip, a member ending inside a line) is noted, not thrown: the rest of the file is read.

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
  /** Plain bytes of the members found or of the plain file (undefined: never now; kept for callers that allow it). */
  readonly size: number | undefined;
  /** The file's identity on disk (device and inode): another one means the file was replaced. */
  readonly identity: string;
  private readonly handle: fs.FileHandle;
  private readonly list: MemberList | undefined;
  private readonly damages: string[] = [];
  // the slice buffer, kept for the next read of a file held open (held.ts); taken while a read uses it
  private scratch: Buffer[] | undefined;

  private constructor(file: string, handle: fs.FileHandle, stat: Stats, size: number | undefined, list: MemberList | undefined) {
    this.file = file;
    this.identity = `${stat.dev}:${stat.ino}`;
    this.handle = handle;
    this.size = size;
    this.list = list;
    if (list) this.damages.push(...list.damage);
  }

  /** Open a file as stored (ENOENT and other open errors are thrown: the caller decides what a missing file means). */
  static async open(file: string, cache?: MemberCache): Promise<RecordedFile> {
    const handle = await openRegular(file);
    try {
      const stat = await handle.stat();
      if (!isCompressed(file)) return new RecordedFile(file, handle, stat, stat.size, undefined);
      let list = cache?.get(file, stat);
      if (!list) {
        list = await membersOf(handle, stat.size);
        cache?.set(file, stat, list);
      }
      return new RecordedFile(file, handle, stat, list.plainBytes, list);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Whether the file is stored compressed. */
  get compressed(): boolean {
    return this.list !== undefined;
  }

  /** What was found damaged so far (reasons), empty when nothing was. */
  get damage(): readonly string[] {
    return this.damages;
  }

  /**
   * Call `onLine` for every whole line in [from, to) of the plain bytes (`from` must be a
   * line's start); a line not ended before `to` is left out. `stop()` is asked between
   * slices. Resolves the offset after the last whole line read. `sliced`: see LineSplitter
   * (plain files only).
   */
  async read(from: number, to: number, onLine: OnLine, stop: () => boolean = () => false, sliced = false): Promise<number> {
    if (!this.list) return this.readPlain(from, to, onLine, stop, sliced);
    return this.readMembers(this.list.members, from, to, onLine, stop);
  }

  /**
   * For a plain file nothing writes to (a past day's, a stopped run's): name the bytes after
   * its last newline as damage (a torn last line; the lines before it are served). The file
   * being written is cut at start-up instead, and read only to the head's length.
   */
  async noteTornTail(): Promise<void> {
    if (this.list || !this.size) return;
    const last = Buffer.alloc(1);
    await this.handle.read(last, 0, 1, this.size - 1);
    if (last[0] === 0x0a) return;
    const buf = Buffer.allocUnsafe(SLICE_BYTES);
    let end = this.size;
    let at = -1;
    while (end > 0 && at === -1) {
      const start = Math.max(0, end - buf.length);
      const { bytesRead } = await this.handle.read(buf, 0, end - start, start);
      const i = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
      at = i === -1 ? -1 : start + i;
      end = start;
    }
    const reason = tornTail(this.size - (at + 1));
    if (!this.damages.includes(reason)) this.damages.push(reason);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private async readPlain(from: number, to: number, onLine: OnLine, stop: () => boolean, sliced: boolean): Promise<number> {
    const splitter = new LineSplitter(from, onLine, sliced);
    // two buffers: the next slice is read while the lines of this one are cut (the read's wait overlaps the work)
    const bufs = this.scratch ?? [Buffer.allocUnsafe(SLICE_BYTES), Buffer.allocUnsafe(SLICE_BYTES)];
    this.scratch = undefined;
    const readAt = (pos: number, i: number) => this.handle.read(bufs[i]!, 0, Math.min(SLICE_BYTES, to - pos), pos);
    let next = from < to && !stop() ? readAt(from, 0) : undefined;
    try {
      for (let pos = from, i = 0; next !== undefined;) {
        const { bytesRead } = await next;
        next = undefined;
        if (bytesRead <= 0 || stop()) break;
        pos += bytesRead;
        if (pos < to && !stop()) next = readAt(pos, 1 - i);
        splitter.push(bufs[i]!.subarray(0, bytesRead));
        i = 1 - i;
      }
    } finally {
      // a read still under way writes into its buffer: awaited before the buffers are free again (the lines are copies)
      await next?.catch(() => undefined);
      this.scratch = bufs;
    }
    return splitter.end;
  }

  private async readMembers(members: Member[], from: number, to: number, onLine: OnLine, stop: () => boolean): Promise<number> {
    let end = from;
    // members without the field that follow each other are one stream (zcat's view): a line may go on in the next
    let carried: LineSplitter | undefined;
    for (const [i, m] of members.entries()) {
      if (m.plainOffset + m.plainBytes <= from) continue;
      if (m.plainOffset >= to || stop()) break;
      const last = Math.min(to, m.plainOffset + m.plainBytes);
      const joined = joinsNext(members, i);
      const splitter = m.streamed ? await this.streamed(m, last, carried ?? streamSplitter(m, from, to, onLine)) : await this.indexed(m, from, last, onLine);
      carried = joined ? splitter : undefined;
      if (!splitter) continue;
      end = splitter.end;
      // a member holds whole lines: one that ends inside a line (cut before or after compression) is named
      if (last === m.plainOffset + m.plainBytes && splitter.tornBytes > 0 && !m.partial && !joined) this.noteTorn(m, splitter.tornBytes);
    }
    return end;
  }

  private noteTorn(m: Member, bytes: number): void {
    const reason = tornMember(m.offset, bytes);
    if (!this.damages.includes(reason)) this.damages.push(reason);
  }

  /** The lines of [from, last) of a member with the `Md` field (decompressed whole: it is ~64 KiB). */
  private async indexed(m: Member, from: number, last: number, onLine: OnLine): Promise<LineSplitter | undefined> {
    const plain = await this.member(m);
    if (!plain) return undefined;
    const first = Math.max(from, m.plainOffset) - m.plainOffset;
    const splitter = new LineSplitter(m.plainOffset + first, onLine);
    splitter.push(plain.subarray(first, last - m.plainOffset));
    return splitter;
  }

  /** The plain bytes up to `last` of a member without the field, decompressed as a stream from its start (bounded memory), fed to `splitter`. */
  private async streamed(m: Member, last: number, splitter: LineSplitter): Promise<LineSplitter> {
    let taken = 0;
    await inflateMember(this.handle, m.offset, m.offset + m.bytes, (chunk) => {
      const part = chunk.subarray(0, Math.max(0, last - m.plainOffset - taken));
      taken += part.length;
      splitter.push(part);
    }, () => taken >= last - m.plainOffset);
    return splitter;
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
}

/** Why a plain file is named damaged when it ends inside a line (the gzip twin: tornMember). */
export function tornTail(bytes: number): string {
  return `it ends inside a line (its last ${bytes} bytes form no whole line): a torn last line`;
}

/** A splitter from the start of member `m` passing on the lines of [from, to) only (the member may start inside a line). */
function streamSplitter(m: Member, from: number, to: number, onLine: OnLine): LineSplitter {
  return new LineSplitter(m.plainOffset, (line, start, end) => {
    if (start >= from && end <= to) onLine(line, start, end);
  });
}

/** The member list of an open compressed file. */
async function membersOf(handle: fs.FileHandle, size: number): Promise<MemberList> {
  const walk = walkMembers(size);
  for (let step = walk.next(); ; ) {
    if (step.done) return step.value;
    const want = step.value;
    if (want.inflate !== undefined) {
      step = walk.next(await inflateMember(handle, want.inflate, size, () => {}));
      continue;
    }
    const buf = Buffer.alloc(Math.max(0, Math.min(want.len, size - want.pos)));
    const { bytesRead } = buf.length === 0 ? { bytesRead: 0 } : await handle.read(buf, 0, buf.length, want.pos);
    step = walk.next(buf.subarray(0, bytesRead));
  }
}

function keyOf(stat: Stats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}
