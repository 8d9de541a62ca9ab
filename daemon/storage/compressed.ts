import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { MEMBER_HEADER_BYTES, memberHeader } from '../ndjson/gzip-members.js';
import { GZ, plainName } from '../ndjson/names.js';
import { CompressionAbandoned, writeMembers } from './member-writer.js';
import { whyNotWholeCopy } from './whole-copy.js';
import { notRegularError, notRegularKind, openRegularSync } from '../ndjson/regular.js';

// Gzipped data files (`<name>.ndjson.gz`): compressing a closed file so that a crash at any
// point leaves one whole copy (docs/storage.md). Reading them: daemon/ndjson/.

const TMP = '.gz.tmp';

/** The steps of compressFile, in order (a test can fail after any of them). */
export type CompressStep = 'written' | 'synced' | 'verified' | 'renamed' | 'removed';

/**
 * Gzip `file` to `file.gz` as indexed members (daemon/ndjson/gzip-members.ts): write a temp file, sync it, check that it decompresses to
 * exactly the original, rename it into place, sync the directory, then remove the original.
 * A crash before the rename leaves the original (and a temp file, removed by
 * finishInterrupted); after it, both whole copies (readers take the plain one; the next
 * pass removes it). The .gz keeps the original's modification time. A file written to
 * meanwhile is left as it was.
 */
export async function compressFile(file: string, options: {
  /** Asked (synchronously, just before the rename) whether the file is still closed: false aborts. */
  stillClosed?: () => boolean;
  after?: (step: CompressStep) => void;
  /** Asked between members and steps: true abandons the compression (CompressionAbandoned), the temp file removed. */
  stopped?: () => boolean;
} = {}): Promise<void> {
  const { stillClosed = () => true, after = () => {}, stopped = () => false } = options;
  const tmp = file + TMP;
  refuseOverwrite(file);
  const original = regularStat(file);
  await writeVerified(file, () => fs.createReadStream(file), tmp, stopped, after);
  after('verified');
  // from here to the removal nothing awaits: no append can come in between
  const now = fs.statSync(file);
  if (!stillClosed() || now.size !== original.size || now.mtimeMs !== original.mtimeMs) {
    fs.rmSync(tmp, { force: true });
    throw new Error(`${file} was written to while it was being compressed; it is left as it was`);
  }
  refuseOverwrite(file, tmp);
  fs.utimesSync(tmp, original.atime, original.mtime);
  fs.renameSync(tmp, file + GZ);
  syncPath(path.dirname(file));
  after('renamed');
  fs.unlinkSync(file);
  syncPath(path.dirname(file));
  after('removed');
}

/** Whether a `.gz` was written by an earlier version: one member without the `Md` field (no index). */
export function isSingleMember(gz: string): boolean {
  const fd = openRegularSync(gz);
  try {
    const head = Buffer.alloc(MEMBER_HEADER_BYTES);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return n > 0 && memberHeader(head.subarray(0, n)) === undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Write an earlier version's single-member `.gz` again as indexed members (queries then read
 * only what they need): the members go to a temp file, synced and checked against the old
 * file's content, which it then replaces by a rename. A damaged file fails (left as it was).
 */
export async function recompressFile(gz: string, options: { stopped?: () => boolean } = {}): Promise<void> {
  const { stopped = () => false } = options;
  const tmp = plainName(gz) + TMP;
  const original = regularStat(gz);
  await writeVerified(gz, () => {
    const source = fs.createReadStream(gz);
    const plain = zlib.createGunzip();
    source.on('error', (error) => plain.destroy(error));
    return source.pipe(plain);
  }, tmp, stopped, () => {});
  fs.utimesSync(tmp, original.atime, original.mtime);
  fs.renameSync(tmp, gz);
  syncPath(path.dirname(gz));
}

/** Write the members of `source()` to `tmp`, sync it and check it reads back the same (else it is removed and this throws). */
async function writeVerified(file: string, source: () => NodeJS.ReadableStream, tmp: string, stopped: () => boolean,
  after: (step: CompressStep) => void): Promise<void> {
  const digest = createHash('sha256');
  try {
    await writeTemp(file, source, tmp, digest, stopped);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  after('written');
  syncPath(tmp);
  after('synced');
  const check = createHash('sha256');
  try {
    await pipeline(fs.createReadStream(tmp), zlib.createGunzip(), async function* (chunks) {
      for await (const chunk of chunks) {
        if (stopped()) throw new CompressionAbandoned(file);
        check.update(chunk as Buffer);
      }
    });
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  if (check.digest('hex') !== digest.digest('hex')) {
    fs.rmSync(tmp, { force: true });
    throw new Error(`${file}: the compressed copy does not read back the same; the original is kept`);
  }
}

/** Write the members of `file` to `tmp` (synced by the caller). */
async function writeTemp(file: string, source: () => NodeJS.ReadableStream, tmp: string, digest: Hash, stopped: () => boolean): Promise<void> {
  const out = await fsp.open(tmp, 'w');
  try {
    // the source is opened once the temp file is: iterated at once, its errors reach the loop (none is left unhandled)
    await writeMembers(file, source() as AsyncIterable<Buffer>, out, digest, stopped);
  } finally {
    await out.close();
  }
}

/**
 * Finish what a crash interrupted: remove temp files, and plain files whose .gz beside them is
 * their whole copy (read whole and compared: whole-copy.ts), except those `inUse` names (plain
 * paths). A .gz that is not (damaged, or put there by hand) keeps both files: `kept` is told.
 */
export async function finishInterrupted(dir: string, inUse: (plain: string) => boolean = () => false,
  kept: (plain: string, why: string) => void = () => {}): Promise<string[]> {
  const done: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return done;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    if (name.endsWith(TMP)) {
      fs.rmSync(file, { force: true });
      done.push(file);
    } else if (name.endsWith(`.ndjson${GZ}`) && names.includes(name.slice(0, -GZ.length)) && !inUse(plainName(file))) {
      // the rename happened, the removal did not, or the .gz is not the daemon's: any doubt keeps both
      const why = await whyNotWholeCopy(file, plainName(file)).catch((error: NodeJS.ErrnoException) => `it could not be read whole (${error.code ?? error.message})`);
      if (why) {
        kept(plainName(file), why);
        continue;
      }
      fs.unlinkSync(plainName(file));
      done.push(plainName(file));
    }
  }
  return done;
}

/** Throw (removing `tmp`) when `file.gz` is there already: a compression never writes over a .gz, whatever it holds. */
/** A data file's stat, refused (before any read: a FIFO would block a reading thread) when it is no regular file. */
function regularStat(file: string): fs.Stats {
  const stat = fs.statSync(file);
  const kind = notRegularKind(stat);
  if (kind) throw notRegularError(file, kind);
  return stat;
}

function refuseOverwrite(file: string, tmp?: string): void {
  if (!fs.existsSync(file + GZ)) return;
  if (tmp) fs.rmSync(tmp, { force: true });
  throw new Error(`${file}${GZ} is there already: ${file} is not compressed over it; both are kept`);
}

function syncPath(p: string): void {
  const fd = fs.openSync(p, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
