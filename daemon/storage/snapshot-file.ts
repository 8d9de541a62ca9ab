import fs from 'node:fs';
import path from 'node:path';
import type { Envelope } from '../../lib/wire.js';
import { ChunkedText, DEFAULT_CHUNK_CHARS } from './chunked-text.js';
import { scanLines } from '../ndjson/scan.js';
import { errorCode, readIfExists, SITE_SEQ_FILE, writeFileAtomic, writeJsonAtomic, type TargetMark } from './state-files.js';
import { nodeFs, type StorageFs } from './storage-fs.js';

// `.meridian/snapshot.json`: where each target's replay resumes and the current view. Format 3
// is JSON laid out in lines, so that a view larger than one string can be written and read
// back piece by piece:
//   {"format":3,"written_at":"...","site":{...},"run":null,"types":2,"received":[t1,null],"current":[
//   {"seq":7,...envelope...},
//   {"seq":9,...envelope...}
//   ]}
// `received`: when the daemon received each reading (wall ms, null: not known), in the order
// of `current`; a snapshot without it (an earlier version's) is read as not known.
// Formats 2 (envelope lines as JSON strings) and 1 (envelope objects per target) are still read.

const SNAPSHOT_FORMAT = 3;
const LINES_PREFIX = Buffer.from(`{"format":${SNAPSHOT_FORMAT},`);
const CLOSING = ']}';

/** What the snapshot holds: the site mark, the active run's mark, the current view's lines. */
export interface SnapshotFile {
  written_at: string;
  site: TargetMark | null;
  run: (TargetMark & { run_id: string; started_at: string }) | null;
  /** The envelope line of every current reading. */
  current: string[];
  /** When each reading of `current` was received (wall ms; null: not known); absent: none known. */
  received?: Array<number | null>;
}

/** Formats 1 and 2, read whole (they were written by earlier versions as one string). */
interface SnapshotFileV1V2 {
  format: 1 | 2;
  written_at: string;
  site: (TargetMark & { current?: Envelope[] }) | null;
  run: (TargetMark & { current?: Envelope[]; run_id: string; started_at: string }) | null;
  /** Format 2: the envelope lines. */
  current?: string[];
}

/** Write the snapshot whole or not at all, one envelope line at a time (chunks of about `chunkChars` characters). */
export function writeSnapshot(file: string, snap: SnapshotFile, io: StorageFs = nodeFs, chunkChars = DEFAULT_CHUNK_CHARS): void {
  const { written_at, site, run, current, received } = snap;
  const head = JSON.stringify({ format: SNAPSHOT_FORMAT, written_at, site, run, types: current.length, received });
  writeFileAtomic(file, (put) => {
    const text = new ChunkedText(chunkChars, put);
    text.add(`${head.slice(0, -1)},"current":[\n`);
    current.forEach((line, i) => text.add(i + 1 < current.length ? `${line},\n` : `${line}\n`));
    text.add(`${CLOSING}\n`);
    text.finish();
  }, io);
  // the site seq's high-water mark beside it: kept when the snapshot is removed or set aside
  if (site) writeJsonAtomic(path.join(path.dirname(file), SITE_SEQ_FILE), { site_seq: site.seq }, io, { syncDir: false });
}

/** Read a snapshot (format 3 line by line, 2 or 1 whole); undefined when absent, an Error describing why when unusable. */
export function readSnapshot(file: string): SnapshotFile | undefined | Error {
  try {
    if (!startsWith(file, LINES_PREFIX)) return readWhole(file);
    return readLines(file);
  } catch (error) {
    return new Error(`snapshot ${file} cannot be read (${errorCode(error)})`);
  }
}

function readLines(file: string): SnapshotFile | Error {
  let head: (SnapshotFile & { types: number }) | undefined;
  const current: string[] = [];
  let closed = false;
  let broken = false;
  const scan = scanLines(file, 0, (line) => {
    if (head === undefined) {
      head = parseJson(`${line}${CLOSING}`) as typeof head;
    } else if (line === CLOSING && !closed) {
      closed = true;
    } else if (closed || !line.startsWith('{')) {
      broken = true;
    } else {
      current.push(line.endsWith(',') ? line.slice(0, -1) : line);
    }
    return true;
  });
  if (!head || typeof head.written_at !== 'string' || !marksUsable([head.site, head.run])) return new Error(`unknown snapshot format in ${file}`);
  if (!closed || broken || scan.tornBytes > 0 || current.length !== head.types) return new Error(`snapshot ${file} is incomplete`);
  const received = receivedTimes(head.received, current.length);
  return { written_at: head.written_at, site: head.site, run: head.run, current, received };
}

function readWhole(file: string): SnapshotFile | undefined | Error {
  const raw = readIfExists(file);
  if (raw === undefined) return undefined;
  let snap: SnapshotFileV1V2;
  try {
    snap = JSON.parse(raw) as SnapshotFileV1V2;
  } catch (error) {
    return new Error(`snapshot ${file} is not valid JSON (${(error as Error).message})`);
  }
  if ((snap?.format !== 2 && snap?.format !== 1) || typeof snap.written_at !== 'string') {
    return new Error(`unknown snapshot format in ${file}`);
  }
  const current: unknown = snap.format === 1
    ? [snap.site?.current ?? [], snap.run?.current ?? []].flatMap((list) => (Array.isArray(list) ? list : [undefined]))
    : snap.current;
  if (!Array.isArray(current) || current.includes(undefined) || !marksUsable([snap.site, snap.run])) {
    return new Error(`snapshot ${file} is incomplete`);
  }
  const strip = (mark: TargetMark | null): TargetMark | null => mark && { file: mark.file, offset: mark.offset, seq: mark.seq };
  const { site, run } = snap;
  return {
    written_at: snap.written_at, site: strip(site),
    run: run && { ...strip(run)!, run_id: run.run_id, started_at: run.started_at },
    // format 1 held envelopes as objects (the run's readings overlay the site's)
    current: snap.format === 1 ? (current as Envelope[]).map((env) => JSON.stringify(env)) : current as string[],
  };
}

/** The receipt times of a snapshot's readings when they are usable (one number or null per reading). */
function receivedTimes(received: unknown, count: number): Array<number | null> | undefined {
  if (!Array.isArray(received) || received.length !== count) return undefined;
  return received.every((t) => t === null || (typeof t === 'number' && Number.isFinite(t))) ? received as Array<number | null> : undefined;
}

function marksUsable(marks: Array<TargetMark | null | undefined>): boolean {
  return marks.every((m) => m === null || (typeof m?.file === 'string' && Number.isSafeInteger(m.offset) && Number.isSafeInteger(m.seq)));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether the file begins with `prefix` (false for a missing or shorter file). */
function startsWith(file: string, prefix: Buffer): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    const buf = Buffer.alloc(prefix.length);
    return fs.readSync(fd, buf, 0, prefix.length, 0) === prefix.length && buf.equals(prefix);
  } finally {
    fs.closeSync(fd);
  }
}
