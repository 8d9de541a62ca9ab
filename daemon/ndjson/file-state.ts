import fs from 'node:fs';
import { walkMembers } from './gzip-members.js';
import { isCompressed } from './names.js';
import { scanLines } from './scan.js';

// What a data file holds as far as can be told without reading every line: empty, or (a
// compressed one) damaged, judged by the one reader's own rules (gzip-members.ts, scan.ts).

/** A stored file's state: `ok`, `empty` (a plain file of 0 bytes), `damaged` (a gzip file that cannot be read whole). */
export interface FileJudgement {
  state: 'ok' | 'empty' | 'damaged';
  /** Why, for a state other than ok. */
  reason?: string;
}

/**
 * Judge a data file of `bytes` bytes: a gzip file by its member headers (empty, truncated,
 * no member where one should start), and one compressed by an earlier version (no member
 * index) by decompressing it. A member whose inside was overwritten is found by the reader
 * that decompresses it (/status names it then). Never throws: a file that cannot be opened
 * is damaged, with the reason.
 */
export function judgeFile(file: string, bytes: number): FileJudgement {
  if (!isCompressed(file)) return bytes === 0 ? { state: 'empty', reason: 'it holds no line (0 bytes)' } : { state: 'ok' };
  try {
    const damage = gzipDamage(file);
    return damage === undefined ? { state: 'ok' } : { state: 'damaged', reason: damage };
  } catch (error) {
    return { state: 'damaged', reason: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}

function gzipDamage(file: string): string | undefined {
  const fd = fs.openSync(file, 'r');
  try {
    const walk = walkMembers(fs.fstatSync(fd).size);
    let step = walk.next();
    while (!step.done) {
      const buf = Buffer.alloc(step.value.len);
      step = walk.next(buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, step.value.pos)));
    }
    if (step.value.damage !== undefined) return step.value.damage;
    if (step.value.indexed) return undefined;
  } finally {
    fs.closeSync(fd);
  }
  const damage = scanLines(file, 0, () => true).damage;
  return damage.length > 0 ? damage.join('; ') : undefined;
}
