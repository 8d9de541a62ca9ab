import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';

// Reading whole lines out of a byte range of a file, one bounded slice at a time: each slice
// is one asynchronous read (done off the event loop) and one pass over its lines, so a scan
// of gigabytes never holds the loop for more than a slice (a POST waits at most that long).

/** Bytes read and processed per slice. */
export const SLICE_BYTES = 256 * 1024;

/** Called for each whole line (without its newline) with its start and end offsets (end is past the newline). */
export type OnLine = (line: string, start: number, end: number) => void;

/**
 * Call `onLine` for every whole line in [from, to); a line not ended by a newline before `to`
 * is left out. `from` must be the start of a line. Resolves the offset after the last whole
 * line. `stop()` is asked between slices (a query that has what it needs ends early).
 */
export async function readLines(handle: FileHandle, from: number, to: number, onLine: OnLine, stop: () => boolean = () => false): Promise<number> {
  let pos = from;
  let carry: Buffer | undefined;
  let carryStart = from;
  const buf = Buffer.allocUnsafe(SLICE_BYTES);
  while (pos < to && !stop()) {
    const { bytesRead } = await handle.read(buf, 0, Math.min(SLICE_BYTES, to - pos), pos);
    if (bytesRead <= 0) break;
    pos += bytesRead;
    const data = carry ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
    let start = 0;
    for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
      if (nl > start) onLine(data.toString('utf8', start, nl), carryStart + start, carryStart + nl + 1);
      start = nl + 1;
    }
    carryStart += start;
    carry = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
  }
  return carryStart;
}

/**
 * Call `onLine` for every whole line of a gzip file (a day or run file that retention
 * compressed), decompressing as a stream: no index, every line is read. `stop()` is asked
 * between chunks.
 */
export async function readGzipLines(file: string, onLine: (line: string) => void, stop: () => boolean): Promise<void> {
  const stream = createReadStream(file).pipe(createGunzip());
  const decoder = new StringDecoder('utf8');
  let carry = '';
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (stop()) break;
      const text = carry + decoder.write(chunk);
      const last = text.lastIndexOf('\n');
      if (last === -1) {
        carry = text;
        continue;
      }
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1 && nl <= last; nl = text.indexOf('\n', start)) {
        if (nl > start) onLine(text.slice(start, nl));
        start = nl + 1;
      }
      carry = text.slice(last + 1);
    }
  } finally {
    stream.destroy();
  }
}
