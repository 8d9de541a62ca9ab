import fs from 'node:fs';
import type { Logger } from '../../lib/log.js';
import type { Envelope } from '../../lib/wire.js';
import type { Reading } from './current-view.js';
import { plainName, readStored } from './compressed.js';
import { cutTornTail, lastSeq, scanFile } from './scan.js';
import type { TargetMark } from './state-files.js';

// Start-up: bring a target's seq and view back from a snapshot mark plus the lines after it.

/** What replaying a target gave: the last seq and the latest reading of every type. */
export interface Recovered {
  seq: number;
  readings: Map<string, Reading>;
  /** Lines replayed (0 when the snapshot was up to date). */
  replayed: number;
}

/**
 * Replay `files` (in order) starting at `mark` when it is usable, otherwise from the start
 * of the first file. Held seqs are counted but do not become current. Torn final lines are
 * cut off and logged with file and byte offset.
 */
export function replayTarget(files: string[], mark: TargetMark | null | undefined, held: Set<number>,
  logger: Logger, what: string): Recovered {
  const readings = new Map<string, Reading>();
  let seq = 0;
  let from = 0;
  let offset = 0;
  if (mark) {
    // the mark names the plain file; it may be stored gzipped since
    const at = files.findIndex((f) => plainName(f) === mark.file);
    const size = at === -1 ? -1 : files[at] === mark.file ? fileSize(mark.file) : readStored(files[at]!).length;
    if (at !== -1 && size >= mark.offset) {
      from = at;
      offset = mark.offset;
      seq = mark.seq;
      for (const env of mark.current) readings.set(env.type, { envelope: env, json: JSON.stringify(env) });
    } else {
      logger.warn(`${what}: snapshot points at ${mark.file} byte ${mark.offset}, which is not there; replaying every file`);
    }
  }
  let replayed = 0;
  for (let i = from; i < files.length; i++) {
    const file = files[i]!;
    const scan = scanFile(file, i === from ? offset : 0, (env: Envelope, line: string) => {
      replayed++;
      if (env.seq > seq) seq = env.seq;
      if (!held.has(env.seq)) readings.set(env.type, { envelope: env, json: line });
    });
    for (const at of scan.bad) logger.warn(`${file}: skipped a line that is not an envelope at byte ${at}`);
    const cut = cutTornTail(file, scan);
    if (cut !== undefined) logger.warn(`${file}: cut a torn final line of ${scan.tornBytes} bytes at byte ${cut}`);
  }
  return { seq, readings, replayed };
}

/**
 * Make sure a run file ends with a whole line; cuts a torn tail (logged) and returns its last
 * seq (0 for a missing file). Its directory must exist.
 */
export function prepareRunFile(file: string, logger: Logger): number {
  const size = fileSize(file);
  if (size > 0) {
    const fd = fs.openSync(file, 'r');
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    fs.closeSync(fd);
    if (last[0] !== 10) {
      // scanning from the last newline finds the torn bytes without reading the whole file
      const scan = scanFile(file, lastNewline(file, size), () => {});
      const cut = cutTornTail(file, scan);
      if (cut !== undefined) logger.warn(`${file}: cut a torn final line of ${scan.tornBytes} bytes at byte ${cut}`);
    }
  }
  return lastSeq(file);
}

function lastNewline(file: string, size: number): number {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      fs.readSync(fd, buf, 0, end - start, start);
      const at = buf.subarray(0, end - start).lastIndexOf(10);
      if (at !== -1) return start + at + 1;
      end = start;
    }
    return 0;
  } finally {
    fs.closeSync(fd);
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return -1;
  }
}
