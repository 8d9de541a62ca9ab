import fs from 'node:fs/promises';
import type { MaxAgeRules } from '../../lib/max-age.js';
import type { History } from '../history/history.js';
import { headCursor, locate } from '../history/position.js';
import type { TelemetryStore } from '../storage/store.js';
import { RollupEngine } from './engine.js';
import { envelopeParts } from './envelope-parts.js';
import { adoptNewer, keepOlder, keepOpenBuckets } from './keep-old.js';
import { foldFrom, type Mark } from './replay.js';
import { appendPending, readCheckpoint, settleRebuild, writeCheckpoint, swapIn, zoneName } from './tier-store.js';

// `telemetry rollup rebuild`: every tier made again from the recorded files into
// `<rollups>.rebuild/`, then put in place of the old directory. Buckets the files no longer give
// (deleted by --retain, removed) are kept from the old tiers (keep-old.ts). Nothing is changed
// until the swap: a crash leaves the old rollups.

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
  const { root } = deps;
  const target = `${root}.rebuild`;
  await fs.rm(target, { recursive: true, force: true });
  try {
    await fs.mkdir(target, { recursive: true });
    await rebuildInto(deps, target);
  } catch (error) {
    // a failed rebuild (a full disk, a stop) leaves the old tiers as they were and no partial one
    try { settleRebuild(root); } catch { /* the next start settles it */ }
    throw error;
  }
}

async function rebuildInto(deps: RebuildDeps, target: string): Promise<void> {
  const { root, store, history } = deps;
  const engine = new RollupEngine(deps.zone, deps.rules);
  const files: Record<string, number> = {};
  // between pages: written out (memory stays bounded), the daemon's requests served, a stop heeded
  const flush = async () => {
    appendPending(target, engine, files);
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (deps.stopped()) throw new RebuildStopped();
  };
  // the old tiers' types that saw readings newer than the files hold are taken as they were
  // where the old checkpoint's cursor is passed (what is recorded after it, older, is late)
  const old = readCheckpoint(root).checkpoint;
  let adopted = false;
  const adopt = () => {
    if (!adopted) adoptNewer(root, target, files, engine, old?.types ?? {});
    adopted = true;
  };
  const folded = await foldFrom(history, store.head(), { segment: 0, seq: 0 }, engine, flush, undefined, markOf(store, old?.cursor, adopt));
  adopt();
  // what is still pending is written first: the old buckets are merged with the rebuilt files
  appendPending(target, engine, files);
  keepOpenBuckets(files, engine, old?.types ?? {});
  await keepOlder(root, target, files, engine);
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
  writeCheckpoint(target, { version: 1, zone: zoneName(deps.zone), cursor: headCursor(store.head()), files: sorted(files), late: engine.late, omitted: engine.omitted, types: engine.state() });
  swapIn(root, target);
  deps.takeLive(engine, files);
}

/** Where `cursor` lies in the files, or no mark when it names no recorded event (adoption then waits for the end of the files). */
function markOf(store: TelemetryStore, cursor: string | undefined, reached: () => void): Mark | undefined {
  if (cursor === undefined) return undefined;
  try {
    return { at: locate(store.head(), cursor, 'the rollup checkpoint'), reached };
  } catch {
    return undefined;
  }
}

/** A rebuild given up because the daemon stops (the old rollups stay; the next start settles it). */
export class RebuildStopped extends Error {
  constructor() {
    super('the rollup rebuild stopped with the daemon');
    this.name = 'RebuildStopped';
  }
}

function sorted(files: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
