import { setMember } from '../../lib/json-text.js';
import type { Logger } from '../../lib/log.js';
import type { RunRecord } from '../../lib/wire.js';
import path from 'node:path';
import { maxSeq } from '../ndjson/ends.js';
import { storedAs } from '../ndjson/names.js';
import { RUN_FILE } from './restore.js';
import { prepareRunDir } from './run-dir.js';
import { assertSafeRunId, nextRunId, resolveRunDir } from './run-resolve.js';
import type { SitePlaces } from './site-places.js';
import { writeKnownRuns, type KnownRun } from './state-files.js';
import type { StorageFs } from './storage-fs.js';

// The runs of a site directory: resolving a run start (id, directory, where its seq
// continues) and remembering every run in `.meridian/runs.json`, so a derived id never
// repeats, also when run_dir lies elsewhere (POCS passes run_dir "runs/<sequence id>").

/** A run start request that passed validation (ids and dirs are checked here). */
export interface ValidRunStart {
  runDir?: string;
  runId?: string;
  /** meta.run_id, when it is a string and run_id is not given. */
  metaRunId?: string;
  /** The caller's meta as JSON object text, as spelled. */
  meta: string;
}

/** A resolved run start: its record (as an object and as the exact text answered), file and first seq. */
export interface ResolvedRun {
  record: RunRecord;
  recordJson: string;
  file: string;
  /** The seq the run continues after (0 for a new run file). */
  seq: number;
  /** The run file's length when the run starts. */
  size: number;
  /** Remove what preparing the run created (the start did not happen). */
  undo(): void;
}

/** The run list of a site directory and the resolution of run starts. */
export class RunBook {
  private readonly siteDir: string;
  private readonly file: string;
  private runs: KnownRun[];
  private readonly places: SitePlaces;

  constructor(siteDir: string, file: string, runs: KnownRun[], places: SitePlaces) {
    this.siteDir = siteDir;
    this.file = file;
    this.runs = runs;
    this.places = places;
  }

  /**
   * Resolve id, directory and seq of a run start (docs/http-api.md, run start); creates the
   * directory. `given(runId)`: the highest seq the timeline says that run id ever had.
   */
  resolve(req: ValidRunStart, startedAt: string, logger: Logger, io: StorageFs, given: (runId: string) => number): ResolvedRun {
    const runId = req.runId ?? req.metaRunId ?? nextRunId(this.siteDir, this.runs.map((run) => run.run_id));
    assertSafeRunId(runId, req.runId !== undefined ? 'run_id' : req.metaRunId !== undefined ? 'meta.run_id' : 'run id');
    const place = resolveRunDir(this.siteDir, runId, req.runDir);
    // asked before the run file is prepared: a file created now for a missing one is no record of the seqs it held
    const highest = Math.max(given(runId), this.unknownEnds(runId, place.dir, Date.parse(startedAt)));
    const prepared = prepareRunDir(this.siteDir, place, RUN_FILE, logger, io);
    const runDir = place.dir;
    const file = prepared.file;
    // (stream, seq) is unique: the seq continues after the highest this run id ever had (in any
    // directory, or while its file was away) and after an earlier run in this directory (it may
    // have ended with ephemeral readings: seqs with no line)
    let seq = Math.max(prepared.seq, highest);
    for (const run of this.runs) if ((run.run_dir === runDir || run.run_id === runId) && (run.last_seq ?? 0) > seq) seq = run.last_seq!;
    const idJson = JSON.stringify(runId);
    const recordJson = `{"run_dir":${JSON.stringify(runDir)},"run_id":${idJson},"meta":${setMember(req.meta, 'run_id', idJson)},` +
      `"started_at":"${startedAt}"}`;
    return { record: JSON.parse(recordJson) as RunRecord, recordJson, file, seq, size: prepared.size, undo: prepared.undo };
  }

  /**
   * The floor of the runs of this id or directory whose end is unknown: what their file holds
   * when it is back, else the clock in ms since 1970 (a count no run reaches), so that a run
   * table that outlived the timeline still gives no seq twice.
   */
  private unknownEnds(runId: string, dir: string, now: number): number {
    let seq = 0;
    for (const run of this.runs) {
      if (!run.end_unknown || (run.run_id !== runId && run.run_dir !== dir)) continue;
      const stored = storedAs(path.join(run.run_dir, RUN_FILE));
      let holds: number | undefined;
      try {
        holds = stored === undefined ? undefined : maxSeq(stored).seq;
      } catch { /* unreadable: as if away */ }
      seq = Math.max(seq, holds ?? (Number.isSafeInteger(Math.floor(now)) ? Math.floor(now) : 0));
    }
    return seq;
  }

  /** Remember a run that starts now (written before the run is active: its id is taken even if the start fails later). */
  started(record: RunRecord): void {
    const runs = [...this.runs, { run_id: record.run_id, run_dir: record.run_dir, started_at: record.started_at }];
    writeKnownRuns(this.file, runs, this.places);
    this.runs = runs;
  }

  /** Note the last seq of a run that stops (so a run restarted on its directory continues after it). */
  stopped(record: RunRecord, lastSeq: number, endUnknown = false): void {
    const mine = (run: KnownRun) => run.run_id === record.run_id && run.started_at === record.started_at;
    // a run the book lost (runs.json found again without it) is noted anew: its last seq is a floor for the id
    const known = this.runs.some(mine) ? this.runs : [...this.runs, { run_id: record.run_id, run_dir: record.run_dir, started_at: record.started_at }];
    const runs = known.map((run) => (mine(run) ? { ...run, last_seq: lastSeq, ...(endUnknown ? { end_unknown: true as const } : {}) } : run));
    writeKnownRuns(this.file, runs, this.places);
    this.runs = runs;
  }
}
