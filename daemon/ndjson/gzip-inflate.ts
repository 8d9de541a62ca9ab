import type fs from 'node:fs/promises';
import zlib from 'node:zlib';

// One gzip member inflated from where it starts in a file, whatever its header holds (an
// `Md` field or none, a name, a comment): where it ends is found by inflating it, so a
// member whose `Md` field is wrong, or a gzip made by hand (`gzip -c a >> f.gz`), is read
// as zcat reads it. Asynchronously (queries) as a stream on zlib's thread pool, bounded in
// memory; synchronously (start-up) a member at a time.

/** Bytes read to find a member's header (its name or comment, if any, must end within). */
const HEADER_WINDOW = 4096;
/** Compressed bytes fed per step. */
const INPUT_SLICE = 256 * 1024;

/** What inflating a member found: its compressed length and plain length, or why it could not be read. */
export interface Inflated {
  /** Compressed bytes of the member (0 when nothing could be read). */
  bytes: number;
  plainBytes: number;
  /** Why it could not be read whole. */
  error?: string;
  /** True when the file ends inside it: `plainBytes` are what it holds (it reaches the end of the file). */
  partial?: boolean;
}

/** The length of the gzip member header at the start of `b`, or undefined when there is none. */
export function gzipHeaderLength(b: Buffer): number | undefined {
  if (b.length < 10 || b[0] !== 0x1f || b[1] !== 0x8b || b[2] !== 8) return undefined;
  const flags = b[3]!;
  if (flags & 0xe0) return undefined;
  let at = 10;
  if (flags & 0x04) {
    if (b.length < 12) return undefined;
    at += 2 + b.readUInt16LE(10);
  }
  for (const bit of [0x08, 0x10]) {
    if (!(flags & bit)) continue;
    const zero = b.indexOf(0, at);
    if (zero === -1) return undefined;
    at = zero + 1;
  }
  if (flags & 0x02) at += 2;
  return at <= b.length ? at : undefined;
}

/** Whether `b` starts as a gzip member does (1f 8b 08). */
export function startsMember(b: Buffer, at = 0): boolean {
  return b[at] === 0x1f && b[at + 1] === 0x8b && b[at + 2] === 8;
}

/** The member's end checked against its trailer (ISIZE: the plain length mod 2^32). */
function judged(pos: number, deflateEnd: number, plainBytes: number, trailer: Buffer, size: number): Inflated {
  if (trailer.length < 8) return { bytes: size - pos, plainBytes, error: 'is cut short (truncated)', partial: true };
  if (trailer.readUInt32LE(4) !== plainBytes % 2 ** 32) return { bytes: 0, plainBytes: 0, error: 'does not decompress (its length check fails)' };
  return { bytes: deflateEnd + 8 - pos, plainBytes };
}

/**
 * Inflate the member at `pos` of a file of `size` bytes read by `readAt` (fewer bytes at the
 * end); `onPlain` gets its plain bytes (nothing when it does not decompress). Holds one
 * member in memory (start-up only; members the daemon writes are ~64 KiB).
 */
export function inflateMemberSync(readAt: (pos: number, len: number) => Buffer, pos: number, size: number,
  onPlain: (plain: Buffer) => void = () => {}): Inflated {
  const hlen = gzipHeaderLength(readAt(pos, HEADER_WINDOW));
  if (hlen === undefined) return { bytes: 0, plainBytes: 0, error: 'has no gzip header' };
  const start = pos + hlen;
  for (let want = INPUT_SLICE; ; want *= 2) {
    const input = readAt(start, Math.min(want, size - start));
    let out: { buffer: Buffer; engine: zlib.InflateRaw };
    try {
      out = zlib.inflateRawSync(input, { info: true, finishFlush: zlib.constants.Z_SYNC_FLUSH }) as unknown as typeof out;
    } catch (error) {
      return { bytes: 0, plainBytes: 0, error: `does not decompress (${(error as Error).message})` };
    }
    const used = out.engine.bytesWritten;
    // all of the input taken and more of the file left: the member goes on past it
    if (used === input.length && start + input.length < size) continue;
    const found = judged(pos, start + used, out.buffer.length, readAt(start + used, 8), size);
    if (found.bytes > 0) onPlain(out.buffer);
    return found;
  }
}

/**
 * Inflate the member at `pos` of an open file of `size` bytes as a stream (bounded memory,
 * off the event loop); `onPlain` gets its plain bytes in order. `stop()` is asked between
 * slices (then what was read is all: the result is not a judgement of the member).
 */
export async function inflateMember(handle: fs.FileHandle, pos: number, size: number, onPlain: (plain: Buffer) => void,
  stop: () => boolean = () => false): Promise<Inflated> {
  const head = Buffer.alloc(Math.max(0, Math.min(HEADER_WINDOW, size - pos)));
  const { bytesRead: headBytes } = await handle.read(head, 0, head.length, pos);
  const hlen = gzipHeaderLength(head.subarray(0, headBytes));
  if (hlen === undefined) return { bytes: 0, plainBytes: 0, error: 'has no gzip header' };
  const start = pos + hlen;
  const engine = zlib.createInflateRaw({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  let plainBytes = 0;
  let failure: Error | undefined;
  engine.on('data', (chunk: Buffer) => {
    plainBytes += chunk.length;
    onPlain(chunk);
  });
  engine.on('error', (error) => { failure = error; });
  // a failure destroys the engine without calling back the write in progress: 'close' settles it too
  const closed = new Promise<void>((resolve) => engine.on('close', resolve));
  const ended = new Promise<void>((resolve) => { engine.on('end', resolve); void closed.then(resolve); });
  try {
    for (let fed = 0; !failure && !stop();) {
      const buf = Buffer.allocUnsafe(Math.max(0, Math.min(INPUT_SLICE, size - start - fed)));
      const { bytesRead } = buf.length === 0 ? { bytesRead: 0 } : await handle.read(buf, 0, buf.length, start + fed);
      if (bytesRead <= 0) break;
      await Promise.race([new Promise<void>((resolve) => engine.write(buf.subarray(0, bytesRead), () => resolve())), closed]);
      fed += bytesRead;
      // the deflate stream ended inside this slice: the member's trailer follows
      if (engine.bytesWritten < fed) break;
    }
    if (!failure) {
      engine.end();
      await ended;
    }
  } finally {
    engine.destroy();
  }
  if (failure) return { bytes: 0, plainBytes: 0, error: `does not decompress (${failure.message})` };
  const deflateEnd = start + engine.bytesWritten;
  const trailer = Buffer.alloc(8);
  const { bytesRead } = await handle.read(trailer, 0, 8, deflateEnd);
  return judged(pos, deflateEnd, plainBytes, trailer.subarray(0, bytesRead), size);
}
