import { isCompressed } from './names.js';
import { membersOfFile, scanLines } from './scan.js';

// What a data file holds as far as can be told without reading every line: empty, or (a
// compressed one) damaged, judged by the one reader's own rules (gzip-members.ts, scan.ts).

/** A stored file's state: `ok`, `empty` (a plain file of 0 bytes), `damaged` (a gzip file that cannot be read whole). */
export interface FileJudgement {
  state: 'ok' | 'empty' | 'damaged';
  /** Why, for a state other than ok. */
  reason?: string;
}

/**
 * Judge a data file of `bytes` bytes: a gzip file by its members as the readers find them
 * (empty, truncated, bytes holding no member), and one whose members carry no index field by
 * decompressing it. A member whose inside was overwritten is found by the reader
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
  const list = membersOfFile(file);
  if (list.damage.length > 0) return list.damage.join('; ');
  if (list.indexed) return undefined;
  // members without the field: their lines are read to find a torn one, as the readers do
  const damage = scanLines(file, 0, () => true).damage;
  return damage.length > 0 ? damage.join('; ') : undefined;
}
