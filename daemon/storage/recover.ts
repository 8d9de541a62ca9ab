import fs from 'node:fs';
import type { Logger } from '../../lib/log.js';
import type { Reading } from './current-view.js';
import { maxSeq } from '../ndjson/ends.js';
import { isCompressed, plainName } from '../ndjson/names.js';
import { plainSize, scanFile, type ScanResult } from '../ndjson/scan.js';
import { readingOfLine } from './envelope-line.js';
import { NewestLines } from './newest-lines.js';
import { readHeld, type TargetMark } from './state-files.js';
import { nodeFs, type StorageFs } from './storage-fs.js';
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
  /**
   * A damaged file that holds the highest seq read (lines past its damage may have held higher
   * ones): the newest seq given cannot be known from the files. Undefined when none is.
   */
  damagedTop?: string;
}

/**
 * Replay `files` (in order) starting at `mark` when it is usable, otherwise from the start
 * of the first file, then the ephemeral readings of `side` since the mark. Held seqs are
 * counted but do not become current. Torn final lines are cut off and logged with file and
 * byte offset. The highest seq of a type wins, whatever order the clock gave the day files;
 * where seqs repeat (the original service restarted its seq) the later line in file order.
 */
export function replayTarget(files: string[], mark: TargetMark | null | undefined, side: SidePaths | undefined,
  logger: Logger, what: string, io: StorageFs = nodeFs): Recovered {
  const held = side ? readHeld(side.held, (m) => logger.warn(m)) : new Set<number>();
  let seq = 0;
  let from = 0;
  let offset = 0;
  let fromMark = false;
  if (mark) {
    // the mark names the plain file; it may be stored gzipped since
    const at = files.findIndex((f) => plainName(f) === mark.file);
    const size = at === -1 ? -1 : plainSize(files[at]!, io);
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
  const damaged: { file: string; top: number }[] = [];
  for (let i = from; i < files.length; i++) {
    const file = files[i]!;
    newest.nextFile();
    let top = 0;
    const scan = scanFile(file, i === from ? offset : 0, (env, line) => {
      replayed++;
      if (env.seq > seq) seq = env.seq;
      if (env.seq > top) top = env.seq;
      newest.note(env.seq);
      if (env.seq > covered && !held.has(env.seq)) newest.offer(env, line);
    }, io);
    // only the last day file may be written to: a torn line of an earlier one is kept (history names it damaged)
    reportScan(file, scan, logger, io, i === files.length - 1);
    if (scan.damage.length > 0) damaged.push({ file, top });
  }
  const damagedTop = damaged.find((d) => d.top >= seq)?.file;
  const readings = new Map<string, Reading>();
  for (const { env, line } of newest.lines()) readings.set(env.type, readingOfLine(env, line));
  if (side) seq = Math.max(seq, replayEphemeral(side.ephemeral, fromMark ? mark!.seq : 0, held, readings, logger, io));
  return { seq, readings, replayed, fromMark, ...(damagedTop === undefined ? {} : { damagedTop }) };
}

/**
 * Make sure a run file ends with a whole line (a torn tail is cut and logged) and return the
 * highest seq in it, 0 for a new file. The whole file is read: its last line need not hold
 * the highest seq (the original service restarted its seq). Its directory must exist.
 */
export function prepareRunFile(file: string, logger: Logger, io: StorageFs = nodeFs): number {
  const { seq, scan } = maxSeq(file, io);
  if (scan) reportScan(file, scan, logger, io);
  return seq;
}

/** Apply the ephemeral readings after seq `after` that are newer than the target's; returns their highest seq. */
function replayEphemeral(file: string, after: number, held: Set<number>, readings: Map<string, Reading>, logger: Logger, io: StorageFs): number {
  if (!fs.existsSync(file)) return 0;
  let seq = 0;
  const scan = scanFile(file, 0, (env, line) => {
    if (env.seq <= after) return; // older than the snapshot (a crash before the side file was emptied)
    if (env.seq > seq) seq = env.seq;
    if (!held.has(env.seq) && env.seq > (readings.get(env.type)?.seq ?? 0)) readings.set(env.type, readingOfLine(env, line));
  }, io);
  reportScan(file, scan, logger, io);
  return seq;
}

function reportScan(file: string, scan: ScanResult, logger: Logger, io: StorageFs, cut = true): void {
  for (const at of scan.bad) logger.warn(`${file}: skipped a line that is not an envelope at byte ${at}`);
  for (const reason of scan.damage) logger.error(`${file} is damaged: ${reason}; what it holds besides is used`);
  // a torn final line of a plain file is cut off (a gzip file is never written to: its damage is reported)
  if (cut && scan.tornBytes > 0 && !isCompressed(file)) {
    io.truncateSync(file, scan.end);
    logger.warn(`${file}: cut a torn final line of ${scan.tornBytes} bytes at byte ${scan.end}`);
  }
}
