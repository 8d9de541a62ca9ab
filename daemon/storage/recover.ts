import fs from 'node:fs';
import type { Logger } from '../../lib/log.js';
import type { Reading } from './current-view.js';
import { plainName, readStored } from './compressed.js';
import { readingOfLine } from './envelope-line.js';
import { NewestLines } from './newest-lines.js';
import { cutTornTail, maxSeq, scanFile, type ScanResult } from './scan.js';
import { readHeld, type TargetMark } from './state-files.js';
import type { SidePaths } from './target.js';

// Start-up: bring a target's seq and readings back from a snapshot mark plus what follows it.

/** What replaying a target gave: the last seq and the newest reading of every type in it. */
export interface Recovered {
  seq: number;
  /** The newest reading of each type recorded after the mark (or in the whole target). */
  readings: Map<string, Reading>;
  /** Lines replayed (0 when the snapshot was up to date). */
  replayed: number;
  /** Whether the replay resumed at the mark; false: it read the files from their start. */
  fromMark: boolean;
}

/**
 * Replay `files` (in order) starting at `mark` when it is usable, otherwise from the start
 * of the first file, then the ephemeral readings of `side` since the mark. Held seqs are
 * counted but do not become current. Torn final lines are cut off and logged with file and
 * byte offset. The highest seq of a type wins, whatever order the clock gave the day files;
 * where seqs repeat (the original service restarted its seq) the later line in file order.
 */
export function replayTarget(files: string[], mark: TargetMark | null | undefined, side: SidePaths | undefined,
  logger: Logger, what: string): Recovered {
  const held = side ? readHeld(side.held, (m) => logger.warn(m)) : new Set<number>();
  let seq = 0;
  let from = 0;
  let offset = 0;
  let fromMark = false;
  if (mark) {
    // the mark names the plain file; it may be stored gzipped since
    const at = files.findIndex((f) => plainName(f) === mark.file);
    const size = at === -1 ? -1 : files[at] === mark.file ? fileSize(mark.file) : readStored(files[at]!).length;
    if (at !== -1 && size >= mark.offset) {
      [from, offset, seq, fromMark] = [at, mark.offset, mark.seq, true];
    } else {
      logger.warn(`${what}: snapshot points at ${mark.file} byte ${mark.offset}, which is not there; replaying every file`);
    }
  }
  // after a mark, a line at or below its seq is in the snapshot already (a later-named day
  // file written before the clock stepped back)
  const covered = fromMark ? mark!.seq : 0;
  const newest = new NewestLines();
  let replayed = 0;
  for (let i = from; i < files.length; i++) {
    const file = files[i]!;
    newest.nextFile();
    const scan = scanFile(file, i === from ? offset : 0, (env, line) => {
      replayed++;
      if (env.seq > seq) seq = env.seq;
      newest.note(env.seq);
      if (env.seq > covered && !held.has(env.seq)) newest.offer(env, line);
    });
    reportScan(file, scan, logger);
  }
  const readings = new Map<string, Reading>();
  for (const { env, line } of newest.lines()) readings.set(env.type, readingOfLine(env, line));
  if (side) seq = Math.max(seq, replayEphemeral(side.ephemeral, fromMark ? mark!.seq : 0, held, readings, logger));
  return { seq, readings, replayed, fromMark };
}

/**
 * Make sure a run file ends with a whole line (a torn tail is cut and logged) and return the
 * highest seq in it, 0 for a new file. The whole file is read: its last line need not hold
 * the highest seq (the original service restarted its seq). Its directory must exist.
 */
export function prepareRunFile(file: string, logger: Logger): number {
  const { seq, scan } = maxSeq(file);
  if (scan) reportScan(file, scan, logger);
  return seq;
}

/** Apply the ephemeral readings after seq `after` that are newer than the target's; returns their highest seq. */
function replayEphemeral(file: string, after: number, held: Set<number>, readings: Map<string, Reading>, logger: Logger): number {
  if (!fs.existsSync(file)) return 0;
  let seq = 0;
  const scan = scanFile(file, 0, (env, line) => {
    if (env.seq <= after) return; // older than the snapshot (a crash before the side file was emptied)
    if (env.seq > seq) seq = env.seq;
    if (!held.has(env.seq) && env.seq > (readings.get(env.type)?.seq ?? 0)) readings.set(env.type, readingOfLine(env, line));
  });
  reportScan(file, scan, logger);
  return seq;
}

function reportScan(file: string, scan: ScanResult, logger: Logger): void {
  for (const at of scan.bad) logger.warn(`${file}: skipped a line that is not an envelope at byte ${at}`);
  const cut = cutTornTail(file, scan);
  if (cut !== undefined) logger.warn(`${file}: cut a torn final line of ${scan.tornBytes} bytes at byte ${cut}`);
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return -1;
  }
}
