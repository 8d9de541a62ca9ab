import path from 'node:path';
import { objectMember } from '../../lib/json-member.js';
import { statePaths, writeJsonAtomic } from '../storage/state-files.js';
import type { StateDamage } from '../storage/state-repair.js';
import type { StorageFs } from '../storage/storage-fs.js';
import { LEARNED_FLOOR_S } from './learner.js';

// `.meridian/learned-limits.json`: each type's learned limit in seconds (a type with none yet
// is not listed), so that a restart (clean or kill -9) judges a stopped sensor by the limit it had
// (docs/configuration.md#learned-limits). Written whole through the storage seam (a temporary
// file synced and renamed). A file that cannot be read is set aside
// (`learned-limits.json.damaged-<ms>`), reported, and every recovered type is judged by the
// fail-safe rule instead (learner.ts: the required safety inputs are judged by the floor).

/** The path of the learned limits file of a site directory. */
export function learnedLimitsFile(siteDir: string): string {
  return path.join(statePaths(siteDir).dir, 'learned-limits.json');
}

/** Each type's limit in seconds. */
export type KnownLimits = ReadonlyMap<string, number>;

/** What the file held: the limits, or none (missing or damaged: `damage` says which). */
export interface LimitsRead {
  limits: KnownLimits | undefined;
  damage?: StateDamage;
}

/** Write the limits (atomically). */
export function writeLearnedLimits(file: string, limits: KnownLimits, io: StorageFs): void {
  writeJsonAtomic(file, { version: 1, limits: Object.fromEntries(limits) }, io);
}

/** Read the limits; a damaged file is set aside (`now` names it) and reported as damage. */
export function readLearnedLimits(file: string, io: StorageFs, now: number): LimitsRead {
  let text: string;
  try {
    text = io.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { limits: undefined };
    return { limits: undefined, damage: { file, reason: `cannot be read (${code ?? (error as Error).message}): ${FAIL_SAFE}` } };
  }
  const limits = parse(text);
  if (limits) return { limits };
  const aside = `${file}.damaged-${Math.floor(now)}`;
  let moved = true;
  try {
    io.renameSync(file, aside);
  } catch {
    moved = false;
  }
  const where = moved ? ` (set aside as ${path.basename(aside)})` : '';
  return { limits: undefined, damage: { file, reason: `not a list of learned limits${where}: ${FAIL_SAFE}` } };
}

const FAIL_SAFE = `a recovered reading of a required safety input is judged by the ${LEARNED_FLOOR_S} s learned floor until its type is posted again`;

function parse(text: string): Map<string, number> | undefined {
  const found = objectMember(text, 'limits');
  if (!found) return undefined;
  const out = new Map<string, number>();
  for (const [type, limit] of Object.entries(found.member)) {
    if (!(typeof limit === 'number' && Number.isFinite(limit) && limit > 0)) return undefined;
    out.set(type, limit);
  }
  return out;
}
