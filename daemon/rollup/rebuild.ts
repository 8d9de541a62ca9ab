import fs from 'node:fs/promises';
import path from 'node:path';
import type { MaxAgeRules } from '../../lib/max-age.js';
import type { History } from '../history/history.js';
import { headCursor } from '../history/position.js';
import type { TelemetryStore } from '../storage/store.js';
import { RollupEngine } from './engine.js';
import { parseBucketLine, statOf, type BucketText } from './bucket-text.js';
import { envelopeParts } from './envelope-parts.js';
import { foldFrom } from './replay.js';
import { appendPending, writeCheckpoint, swapIn } from './tier-store.js';
import { TIERS } from './tiers.js';

// `telemetry rollup rebuild`: every tier made again from the recorded files into
// `<rollups>.rebuild/`, then put in place of the old directory. Buckets older than the first
// one the files still give for a type and tier (their files were deleted by --retain) are kept
// from the old tier files. Nothing is changed until the swap: a crash leaves the old rollups.

/** What a rebuild needs. */
export interface RebuildDeps {
  root: string;
  zone: string;
  rules: MaxAgeRules;
  store: TelemetryStore;
  history: History;
  /** True once the daemon is stopping: the rebuild gives up (RebuildStopped), leaving the old rollups. */
  stopped: () => boolean;
  /** Called in the same turn as the swap: from then on the new engine is the live one. */
  takeLive: (engine: RollupEngine, files: Record<string, number>) => void;
}

/** Rebuild the rollups; the new engine is handed to `takeLive` in the turn it is put in place. */
export async function rebuildRollups(deps: RebuildDeps): Promise<void> {
  const { root, store, history } = deps;
  const target = `${root}.rebuild`;
  await fs.rm(target, { recursive: true, force: true });
  await fs.mkdir(target, { recursive: true });
  const engine = new RollupEngine(deps.zone, deps.rules);
  const files: Record<string, number> = {};
  // between pages: written out (memory stays bounded), the daemon's requests served, a stop heeded
  const flush = async () => {
    appendPending(target, engine, files);
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (deps.stopped()) throw new RebuildStopped();
  };
  const folded = await foldFrom(history, store.head(), { segment: 0, seq: 0 }, engine, flush);
  await keepOlder(root, target, files);
  // the last stretch: the files up to a head, and from the same turn on, what is recorded
  // after it (a listener registered with head() gets everything after it), folded at the swap
  const head = store.head();
  const queued: string[] = [];
  const unsubscribe = store.onRecorded((event) => { if (event.permanent) queued.push(event.reading.json); });
  try {
    await foldFrom(history, head, folded, engine, flush);
  } finally {
    unsubscribe();
  }
  for (const line of queued) {
    const parts = envelopeParts(line);
    if (parts) engine.fold(parts);
  }
  appendPending(target, engine, files);
  writeCheckpoint(target, { version: 1, cursor: headCursor(store.head()), files: sorted(files), late: engine.late, omitted: engine.omitted, types: engine.state() });
  swapIn(root, target);
  deps.takeLive(engine, files);
}

/** A rebuild given up because the daemon stops (the old rollups stay; the next start settles it). */
export class RebuildStopped extends Error {
  constructor() {
    super('the rollup rebuild stopped with the daemon');
    this.name = 'RebuildStopped';
  }
}

/**
 * Put in front of each rebuilt tier file the old buckets that start before its first one (all
 * of them when it has none). The first rebuilt bucket itself is replaced by the old one when
 * the old one saw more of it (more readings of a field, or as many with less time uncovered):
 * the files that held its beginning were deleted by --retain.
 */
async function keepOlder(root: string, target: string, files: Record<string, number>): Promise<void> {
  for (const tier of TIERS) {
    const names = await fs.readdir(path.join(root, tier)).catch(() => [] as string[]);
    for (const name of names.sort()) {
      const rel = path.join(tier, name);
      let rebuilt = await fs.readFile(path.join(target, rel), 'utf8').catch(() => '');
      const firstLine = rebuilt.slice(0, rebuilt.indexOf('\n') + 1);
      const first = firstLine === '' ? undefined : parseBucketLine(firstLine.trimEnd());
      const old = (await fs.readFile(path.join(root, rel), 'utf8').catch(() => '')).split('\n').filter((line) => parseBucketLine(line) !== undefined);
      const kept = old.filter((line) => first === undefined || Number(WHOLE.exec(line)![1]) < first.s);
      const boundary = first && old.find((line) => Number(WHOLE.exec(line)![1]) === first.s);
      const old1 = boundary === undefined ? undefined : parseBucketLine(boundary);
      if (first && boundary && old1 && sawMore(old1, first)) rebuilt = `${boundary}\n${rebuilt.slice(firstLine.length)}`;
      if (kept.length === 0 && !(boundary && rebuilt.startsWith(boundary))) continue;
      const text = kept.map((line) => `${line}\n`).join('') + rebuilt;
      await fs.mkdir(path.join(target, tier), { recursive: true });
      await fs.writeFile(path.join(target, rel), text);
      files[rel] = Buffer.byteLength(text);
    }
  }
}

const WHOLE = /^\{"s":(-?\d+),"e":(-?\d+),.*\}$/;

/** Whether an old bucket saw more of its span than the rebuilt one: a field with more readings, or as many and less time uncovered. */
function sawMore(old: BucketText, rebuilt: BucketText): boolean {
  return [...old.fields].some(([name, o]) => {
    const r = rebuilt.fields.get(name);
    if (r === undefined) return true;
    const [oc, rc] = [statOf(o, 'count'), statOf(r, 'count')];
    return oc > rc || (oc === rc && statOf(o, 'gap_s') < statOf(r, 'gap_s'));
  });
}

function sorted(files: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
