import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { bucketText, parseBucketLine, statOf, type BucketText } from './bucket-text.js';
import type { RollupEngine, TypeState } from './engine.js';
import { tierFile } from './tier-file.js';
import { appendPending } from './tier-store.js';
import { TIERS, type Span } from './tiers.js';

// What a rebuild keeps of the old tiers (docs/rollups.md "Rebuild"): the buckets the recorded
// files no longer give (their files deleted by --retain, or removed), and a type's open buckets
// when the old tiers saw readings newer than the files hold. Tiers never contradict each other:
// every tier of a type is merged by the same rule.

interface Line {
  s: number;
  e: number;
  text: string;
}

/**
 * The types whose old last reading is newer than any the files gave so far (their newest raw
 * files gone) are taken as the old tiers hold them: their buckets, open buckets and last
 * reading (a reading older than it recorded after is late, as the live daemon counted it). What
 * the files gave of such a type is dropped; its readings in a minute no old 1-minute bucket
 * holds are the ones the live daemon left out as late, and are counted so again. Called where
 * the old checkpoint's cursor is passed (rebuild.ts), synchronously (between two lines of a fold).
 */
export function adoptNewer(root: string, target: string, files: Record<string, number>, engine: RollupEngine, old: Readonly<Record<string, TypeState>>): void {
  appendPending(target, engine, files);
  for (const [type, saved] of Object.entries(old)) {
    if (saved.last <= (engine.lastOf(type) ?? -Infinity)) continue;
    const minute = tierFile('1m', type);
    const rebuilt = linesOf(readOrEmpty(path.join(target, minute))).map((l) => parseBucketLine(l.text)!);
    const open = engine.adopt(type, saved);
    if (open) rebuilt.push(bucketText(open));
    const held = new Set(linesOf(readOrEmpty(path.join(root, minute))).map((l) => l.s));
    if (saved.series['1m'].open) held.add(saved.series['1m'].open.start);
    for (const bucket of rebuilt) {
      if (!held.has(bucket.s)) engine.late += Math.max(...[...bucket.fields.values()].map((f) => statOf(f, 'count')));
    }
    for (const tier of TIERS) {
      fs.rmSync(path.join(target, tierFile(tier, type)), { force: true });
      delete files[tierFile(tier, type)];
    }
  }
}

/**
 * A type's open bucket that is its first rebuilt bucket in a tier (the files holding the
 * readings before it deleted) is the old one when the old one saw more of it: a field with more
 * readings, or as many and more time covered (a hold from a deleted reading). Called once the
 * files are folded, before the last stretch, `files` up to date.
 */
export function keepOpenBuckets(files: Readonly<Record<string, number>>, engine: RollupEngine, old: Readonly<Record<string, TypeState>>): void {
  for (const [type, saved] of Object.entries(old)) {
    for (const tier of TIERS) {
      const rebuilt = engine.seriesState(type, tier);
      const before = saved.series[tier];
      if (!rebuilt?.open || !before.open || files[tierFile(tier, type)] !== undefined) continue;
      if (rebuilt.open.start !== before.open.start || rebuilt.open.end !== before.open.end) continue;
      const accs = new Map(rebuilt.accs);
      const more = before.accs.some(([name, o]) => {
        const r = accs.get(name);
        return r === undefined || o.count > r.count || (o.count === r.count && o.covered > r.covered);
      });
      if (more) engine.restoreSeries(type, tier, before);
    }
  }
}

/**
 * Merge the old tiers under `root` into the rebuilt ones under `target` (written, lengths in
 * `files`): per type and tier, every old bucket the rebuilt ones (their open bucket included)
 * do not overlap is kept, and one both hold is the old one when it saw more (merge()).
 */
export async function keepOlder(root: string, target: string, files: Record<string, number>, engine: RollupEngine): Promise<void> {
  const open = new Map<string, Span>();
  for (const type of engine.typeNames()) {
    for (const tier of TIERS) {
      const span = engine.seriesState(type, tier)?.open;
      if (span) open.set(tierFile(tier, type), span);
    }
  }
  for (const tier of TIERS) {
    for (const name of (await fsp.readdir(path.join(root, tier)).catch(() => [] as string[])).sort()) {
      const rel = path.join(tier, name);
      const rebuilt = linesOf(await fsp.readFile(path.join(target, rel), 'utf8').catch(() => ''));
      const span = open.get(rel);
      const old = linesOf(await fsp.readFile(path.join(root, rel), 'utf8').catch(() => '')).filter((l) => !span || l.e <= span.start || l.s >= span.end);
      const text = merge(old, rebuilt).map((l) => `${l.text}\n`).join('');
      if (text === '') continue;
      await fsp.mkdir(path.join(target, tier), { recursive: true });
      await fsp.writeFile(path.join(target, rel), text);
      files[rel] = Buffer.byteLength(text);
    }
  }
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** A tier file's whole, valid bucket lines (a torn or edited line is left out). */
function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  for (const line of text.split('\n')) {
    const bucket = parseBucketLine(line);
    if (bucket) lines.push({ s: bucket.s, e: bucket.e, text: line });
  }
  return lines;
}

/**
 * Old and rebuilt buckets in start order: an old bucket overlapping rebuilt ones but not the
 * same span is dropped; the same span is the old bucket when it saw more: a field with more
 * readings (or one the rebuilt lacks), or, at the first rebuilt bucket (the files holding its
 * beginning deleted), as many readings with less time uncovered.
 */
function merge(old: readonly Line[], rebuilt: readonly Line[]): Line[] {
  const out: Line[] = [];
  let r = 0;
  for (const o of old) {
    while (r < rebuilt.length && rebuilt[r]!.e <= o.s) out.push(rebuilt[r++]!);
    const next = rebuilt[r];
    if (next === undefined || o.e <= next.s) out.push(o);
    else if (next.s === o.s && next.e === o.e) {
      out.push(sawMore(parseBucketLine(o.text)!, parseBucketLine(next.text)!, r === 0) ? o : next);
      r++;
    }
  }
  while (r < rebuilt.length) out.push(rebuilt[r++]!);
  return out;
}

function sawMore(old: BucketText, rebuilt: BucketText, first: boolean): boolean {
  return [...old.fields].some(([name, o]) => {
    const b = rebuilt.fields.get(name);
    if (b === undefined) return true;
    const [oc, rc] = [statOf(o, 'count'), statOf(b, 'count')];
    return oc > rc || (first && oc === rc && statOf(o, 'gap_s') < statOf(b, 'gap_s'));
  });
}
