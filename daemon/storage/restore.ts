import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../lib/log.js';
import type { RunRecord } from '../../lib/wire.js';
import type { Reading } from './current-view.js';
import { readingOfLine } from './envelope-line.js';
import { NewestLines } from './newest-lines.js';
import { newestRecorded } from './record-order.js';
import { prepareRunFile, replayTarget, type Recovered } from './recover.js';
import { unusableReason } from './run-dir.js';
import { assertSafeRunId, resolveRunDir } from './run-resolve.js';
import { parseEnvelope } from '../ndjson/head.js';
import { brokenBeside, isCompressed, listSiteFiles, plainName, RUN_FILE } from '../ndjson/names.js';
import { scanFile } from '../ndjson/scan.js';
import { maxSeq } from '../ndjson/ends.js';
import { isRegularFile, notRegularError, notRegularKind } from '../ndjson/regular.js';
import type { StorageFs } from './storage-fs.js';
import type { SidePaths } from './target.js';
import { runFilesOf } from './run-files.js';
import { SitePlaces } from './site-places.js';
import { Timeline, UNKNOWN_END, type Segment } from './timeline.js';
import { rebuildTimeline } from './timeline-rebuild.js';
import { knownRunsOf, notingDamage, orphanRunOf, setDamagedTimelineAside, withTimelineFloors, type OrphanRun, type StateDamage } from './state-repair.js';
import {
  readActiveRun, readSiteSeq, statePaths, type ActiveRunState, type KnownRun,
} from './state-files.js';
import { readSnapshot, type SnapshotFile } from './snapshot-file.js';

// Start-up as a whole: the site target, the active run and the current view, from the
// snapshot and what was recorded after it; without a usable snapshot, from every file.

export { RUN_FILE } from '../ndjson/names.js';

/** An active run that could not resume at start-up (its directory is not usable): events go to the site file. */
export interface SuspendedRun {
  record: RunRecord;
  /** Why it could not resume, e.g. `ENOENT`. */
  reason: string;
  /** The highest seq the run is known to have given (its file, the snapshot's mark, its start): where its stop is journaled. */
  lastSeq: number;
  /** Whether lastSeq is the run's last seq (else only a floor: a crash left seqs past the snapshot unknown). */
  exact: boolean;
}

/** What the store starts from. */
export interface Restored {
  site: Recovered;
  /** The newest site day file ('' when there is none yet). */
  siteFile: string;
  run: { state: ActiveRunState; recovered: Recovered; file: string } | undefined;
  /** The active run whose directory is not usable at start-up (it is suspended), or undefined. */
  suspended: SuspendedRun | undefined;
  /** The current view's readings. */
  current: Reading[];
  knownRuns: KnownRun[];
  /** How the state files record paths, and where those of earlier versions are now. */
  places: SitePlaces;
  /** The timeline's open run that no active run record resumes (closed at start-up), or undefined. */
  orphan: OrphanRun | undefined;
  /** The state files under `.meridian/` found damaged (named in /status). */
  damaged: StateDamage[];
}

/**
 * Read the state of a site directory. With a usable snapshot the view is exact: the
 * snapshot's, then what the site and the active run recorded after it (in that order: while
 * a run is active nothing goes to the site). Without one (deleted, corrupt, pointing past the
 * end of a file, or a directory of the original service) every site and run file is read and
 * each type's reading recorded last wins: by seq in a target, by the timeline across targets,
 * by `ts` only where neither tells (see record-order.ts).
 */
export function restore(siteDir: string, logger: Logger, io: StorageFs, beforeReplay: (places: SitePlaces, logger: Logger) => void, now: number,
  crashed = false): Restored {
  const paths = statePaths(siteDir);
  let snap = readSnapshot(paths.snapshot);
  let snapDamage: StateDamage | undefined;
  if (snap instanceof Error) {
    logger.warn(`${snap.message}; replaying the files instead`);
    snapDamage = { file: paths.snapshot, reason: `${snap.message}; the files were replayed instead` };
    snap = undefined;
  }
  const places = placesOf(siteDir, snap, logger);
  // the side state files (batch journal, held seqs, ephemeral readings) found damaged are named in /status too
  const sideDamage: StateDamage[] = [];
  const sideLogger = notingDamage(logger, [paths.batch, paths.site.held, paths.site.ephemeral, paths.run.held, paths.run.ephemeral], sideDamage);
  beforeReplay(places, sideLogger);
  const { runs: listed, damage: runsDamage } = knownRunsOf(siteDir, paths.runs, places, logger, io);
  const siteFiles = listSiteFiles(siteDir);
  if (!snap && siteFiles.length > 0) logger.warn(`no usable snapshot; replaying ${siteFiles.length} site file(s)`);
  const site = replayTarget(siteFiles, snap?.site, paths.site, sideLogger, 'site', io);
  // a damaged timeline is treated like a lost one: rebuilt from the run files
  const timelineDamage = setDamagedTimelineAside(paths.timeline, now, io, logger);
  if (!fs.existsSync(paths.timeline)) rebuildTimeline(paths.timeline, siteFiles, listed, io, logger, places);
  const repaired: string[] = [];
  const segments = Timeline.read(paths.timeline, (m) => logger.warn(m), places, io, (m) => repaired.push(m));
  const filesTop = site.seq;
  const siteSeqRecord = readSiteSeq(paths.siteSeq, (m) => logger.warn(m));
  const marked = Math.max(snap?.site?.seq ?? 0, siteSeqRecord ?? 0);
  const journaled = Math.max(0, ...segments.filter((s) => s.stream === 'site').map(siteSeqOf));
  const recorded = Math.max(marked, journaled);
  // a record at or past the damaged file's readable top was written after its lines (a .gz is a closed day's): it is the floor
  if (site.damagedTop !== undefined && (recorded === 0 || recorded < site.seq)) continueUnknown(site,
    `${site.damagedTop} is damaged and holds the highest seq read (${site.seq}): seqs past its damage cannot be known`, now, logger);
  // both records of the high-water mark damaged: day files moved away cannot be told from none
  if (siteSeqRecord === undefined && !snap?.site) {
    continueUnknown(site, `${paths.siteSeq} is damaged and no snapshot gives the site seq reached: ` +
      `day files moved away cannot be told from none (the files hold seqs up to ${site.seq})`, now, logger);
  }
  // the timeline journals only run starts and stops: past its last point, without a mark that reaches it, how far the seq went is not known
  if (journaled > site.seq && journaled > marked) continueUnknown(site, `the site files hold seqs up to ${site.seq}, but the timeline journals ` +
    `site seq ${journaled} and neither the snapshot nor ${paths.siteSeq} says how far the seq went after it (day files moved away?)`, now, logger);
  continueSiteSeq(site, recorded, logger);
  const activeWarnings: string[] = [];
  const recordedActive = readActiveRun(paths.activeRun, (m) => { activeWarnings.push(m); logger.warn(m); }, places);
  const lostStop = lostStopOf(segments, filesTop);
  if (lostStop) repaired.push(lostStop.message);
  // an older .meridian/ restored: the run it records as active stopped since (the site went on after its start)
  const stale = recordedActive && lostStop?.runId === recordedActive.record.run_id;
  const active = stale ? undefined : recordedActive;
  for (const message of repaired) logger.warn(`the timeline ${paths.timeline} lacks lines: ${message}`);
  const orphan = orphanRunOf(segments, active && { runId: active.record.run_id, file: path.join(active.record.run_dir, RUN_FILE) },
    (file) => (snap?.run?.file === file ? snap.run.seq : 0), paths.run.ephemeral, io);
  const knownRuns = withTimelineFloors(listed, segments, orphan, io);
  const resumed = active ? replayActiveRun(siteDir, active, snap?.run ?? null, paths.run, sideLogger, io, segments, crashed) : undefined;
  const run = resumed && 'recovered' in resumed ? resumed : undefined;
  const suspended = resumed && 'suspended' in resumed ? resumed.suspended : undefined;
  const received = snap?.received;
  const fromSnapshot = snap?.current.map((line, i) => lineReading(line, received?.[i] ?? NaN)).filter((r): r is Reading => r !== undefined) ?? [];
  let current: Reading[];
  if (snap && (snap.site === null || site.fromMark)) {
    const orphaned = newestOf([...orphanRun(segments, snap, io), ...(orphan?.ephemeral ?? [])]);
    current = overlay([fromSnapshot, [...site.readings.values()], [...(run?.recovered.readings.values() ?? orphaned)]]);
  } else {
    const runFiles = runFilesOf(siteDir, knownRuns).filter((file) => file !== run?.file);
    current = newestRecorded(segments, [
      ...fromSnapshot.map((reading) => ({ stream: streamOf(reading), readings: [reading] })),
      { stream: 'site', readings: site.readings.values() },
      ...runFiles.map((file) => readingsOf(file, io)).map((readings) => ({ stream: streamOf(readings[0]), readings })),
      ...(run ? [{ stream: run.state.record.run_id, readings: run.recovered.readings.values() }] : []),
      ...(orphan ? [{ stream: orphan.runId, readings: orphan.ephemeral }] : []),
    ]);
  }
    // a compressed last file is closed: the first event opens the file of its own day
  const last = siteFiles.at(-1);
  const damaged = [snapDamage, runsDamage, timelineDamage].filter((d): d is StateDamage => d !== undefined);
  if (repaired.length > 0) damaged.push({ file: paths.timeline, reason: `it lacks lines: ${repaired.join('; ')}` });
  damaged.push(...sideDamage);
  if (stale) damaged.push({ file: paths.activeRun, reason: `an older record: run ${recordedActive.record.run_id} stopped since, it is not resumed` });
  damaged.push(...brokenPlains([...siteFiles, ...runFilesOf(siteDir, knownRuns)], logger));
  damaged.push(...recordDamage(paths, siteSeqRecord === undefined, snap?.site ? 'snapshot' : 'clock', !active && activeWarnings.length > 0));
  return { site, siteFile: last && !isCompressed(last) ? last : '', run, suspended, current, knownRuns, places, orphan, damaged };
}

/**
 * The run the timeline leaves open while the site files hold seqs past its start (nothing goes
 * to the site while a run is active: its stop was lost, or an older `.meridian/` was restored).
 */
function lostStopOf(segments: readonly Segment[], filesTop: number): { runId: string; message: string } | undefined {
  const open = segments.at(-1);
  const before = segments.at(-2);
  if (!open || open.stream === 'site' || before?.stream !== 'site' || filesTop <= before.to) return undefined;
  return { runId: open.stream, message: `run ${open.stream} is open in it since site seq ${before.to}, but the site files hold seqs up to ${filesTop} ` +
    '(its stop lost, or an older .meridian/ restored): it is closed at that site seq and the site seqs after it are served' };
}

/** The plain files broken beside the `.gz` read instead (brokenBeside), named in the log and /status; they are left as they are. */
function brokenPlains(stored: readonly string[], logger: Logger): StateDamage[] {
  const found: StateDamage[] = [];
  for (const gz of stored.filter(isCompressed)) {
    const why = brokenBeside(plainName(gz));
    if (why === undefined) continue;
    logger.warn(`${plainName(gz)}: ${why}, beside ${gz}: the .gz is read (the plain file is left as it is)`);
    found.push({ file: plainName(gz), reason: `${why}, beside its .gz: the .gz is read` });
  }
  return found;
}

/** The damage of `site-seq.json` (with where the seq continues) and of `active-run.json`, as /status names it. */
function recordDamage(paths: ReturnType<typeof statePaths>, siteSeq: boolean, floor: 'snapshot' | 'clock', activeRun: boolean): StateDamage[] {
  const after = floor === 'snapshot' ? 'the snapshot\'s and every other record' : 'the clock in ms since 1970 (no snapshot gives it)';
  return [
    ...(siteSeq ? [{ file: paths.siteSeq, reason: `not {"site_seq": N}: the site seq continues after ${after}` }] : []),
    ...(activeRun ? [{ file: paths.activeRun, reason: 'not a whole run record: started with no active run' }] : []),
  ];
}

/** Where the records' paths are now (the site directory may have been moved or copied); the snapshot's marks are placed. */
function placesOf(siteDir: string, snap: SnapshotFile | undefined, logger: Logger): SitePlaces {
  const places = SitePlaces.fromMark(siteDir, snap?.site?.file);
  if (places.former) logger.warn(`the site directory was at ${places.former}: its records are read at their places under ${places.siteDir}`);
  if (snap?.site) snap.site = { ...snap.site, file: places.place(snap.site.file) };
  if (snap?.run) snap.run = { ...snap.run, file: places.place(snap.run.file) };
  return places;
}

/**
 * Replay the active run's file from the snapshot's mark, or from where the run started. When
 * its file is not there or not usable (a disk not mounted, a directory removed, a name the
 * daemon keeps), the run is suspended instead: its file is not recreated (its seqs would
 * repeat those of the missing one) and events go to the site file.
 */
function replayActiveRun(siteDir: string, state: ActiveRunState, mark: SnapshotFile['run'], side: SidePaths, logger: Logger, io: StorageFs,
  segments: readonly Segment[], crashed: boolean): { state: ActiveRunState; recovered: Recovered; file: string } | { suspended: SuspendedRun } {
  const { record } = state;
  const file = path.join(record.run_dir, RUN_FILE);
  try {
    assertSafeRunId(record.run_id, 'run_id'); // not the site stream's name (an earlier version let it through)
    resolveRunDir(siteDir, record.run_id, record.run_dir); // still not a name the daemon keeps
    const kind = notRegularKind(fs.statSync(file));
    if (kind) throw notRegularError(file, kind);
    // the seq the run continued after; a record of an earlier version lacks it: read the file
    const startSeq = state.start_seq ?? prepareRunFile(file, logger, io);
    const usable = mark && mark.run_id === record.run_id && mark.started_at === record.started_at && mark.file === file;
    const from = usable ? mark : { file, offset: state.start_offset, seq: startSeq };
    const recovered = replayTarget([file], from, side, logger, `run ${record.run_id}`, io);
    return { state, recovered, file };
  } catch (error) {
    // exact when its file is readable, or when the daemon stopped cleanly (its last snapshot marked the run's end)
    const mine = mark?.run_id === record.run_id && mark.started_at === record.started_at;
    const exact = readableFile(file) || (mine && !crashed);
    const suspended = { record, reason: unusableReason(error), lastSeq: knownLastSeq(state, mark, file, [file, side.ephemeral], segments, io), exact };
    logger.error(`run ${record.run_id} cannot resume: its run_dir ${record.run_dir} is not usable (${suspended.reason}). ` +
      'The run is suspended: events go to the site file until it is stopped (POST /run/stop) ' +
      'or the daemon is restarted with the directory back');
    return { suspended };
  }
}

/**
 * The highest seq a run that cannot resume is known to have given, from what is readable: its
 * file (a directory not usable may still be read) and its ephemeral readings' side file
 * (`readable`), the snapshot's mark of this run, its start's seq and the timeline's segments of its file. Seqs it gave after the last snapshot while its
 * file is away cannot be known (docs/storage.md).
 */
function knownLastSeq(state: ActiveRunState, mark: SnapshotFile['run'], file: string, readable: string[], segments: readonly Segment[], io: StorageFs): number {
  const { record } = state;
  let seq = state.start_seq ?? 0;
  if (mark && mark.run_id === record.run_id && mark.started_at === record.started_at) seq = Math.max(seq, mark.seq);
  for (const s of segments) if (s.file === file) seq = Math.max(seq, s.after, Number.isFinite(s.to) && s.to !== UNKNOWN_END ? s.to : 0);
  for (const known of readable) {
    try {
      seq = Math.max(seq, maxSeq(known, io).seq);
    } catch { /* not readable: what the state files knew */ }
  }
  return seq;
}

function readableFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The site seq never restarts: when the files hold less than the state under `.meridian/`
 * recorded (the snapshot's mark, `site-seq.json`, the site seqs of run starts and stops), day files were moved
 * away while the daemon was stopped, and the seq continues after the recorded one.
 */
function continueSiteSeq(site: Recovered, recorded: number, logger: Logger): void {
  if (recorded <= site.seq) return;
  logger.warn(`the site files hold seqs up to ${site.seq}, but seq ${recorded} was recorded (day files moved away?); ` +
    `the site seq continues after ${recorded}`);
  site.seq = recorded;
}

/**
 * The newest site seq cannot be known: the damaged file holds the highest seq read, lines
 * past its damage (a truncated `.gz`) may have held higher ones, and no record under
 * `.meridian/` reaches that seq (lost, or older than the file). Rather than guess low (a seq
 * given twice: a sink drops the new events as duplicates, a stream resume ends in 422), the
 * seq continues after the wall clock in ms since the epoch, a count no daemon reaches.
 */
function continueUnknown(site: Recovered, why: string, now: number, logger: Logger): void {
  const floor = Number.isSafeInteger(Math.floor(now)) ? Math.floor(now) : 0;
  if (floor <= site.seq) return;
  logger.warn(`${why}; the site seq continues after ${floor} (the clock in ms since 1970) so that no seq is given twice`);
  site.seq = floor;
}

/** The highest site seq a segment of the timeline records. */
function siteSeqOf(segment: Segment): number {
  return Number.isFinite(segment.to) ? Math.max(segment.after, segment.to) : segment.after;
}

/**
 * The readings an open run recorded after the snapshot when its record (`active-run.json`) is
 * lost: the run is closed (the timeline journals its stop), and what it recorded after the
 * snapshot stays current, as it does when all of `.meridian/` is lost (docs/storage.md).
 */
function orphanRun(segments: readonly Segment[], snap: SnapshotFile, io: StorageFs): Reading[] {
  const open = segments.at(-1);
  if (!open?.file || Number.isFinite(open.to) || !isRegularFile(open.file)) return [];
  const after = snap.run && snap.run.file === open.file ? Math.max(snap.run.seq, open.after) : open.after;
  return readingsOf(open.file, io).filter((reading) => reading.seq > after);
}

/** The reading of the highest seq of each type (readings of one stream). */
function newestOf(readings: Reading[]): Reading[] {
  const view = new Map<string, Reading>();
  for (const reading of readings) if (reading.seq > (view.get(reading.type)?.seq ?? 0)) view.set(reading.type, reading);
  return [...view.values()];
}

/** Readings in order, a later one replacing an earlier one of the same type. */
function overlay(sources: Reading[][]): Reading[] {
  const view = new Map<string, Reading>();
  for (const source of sources) for (const reading of source) view.set(reading.type, reading);
  return [...view.values()];
}

/** The stream a reading of a run file or the snapshot was recorded in: its run's id, else the site. */
function streamOf(reading: Reading | undefined): string {
  const runId = reading?.envelope.meta?.run_id;
  return typeof runId === 'string' ? runId : 'site';
}

/** The newest reading of each type in a file that is only read (a torn tail is left alone). */
function readingsOf(file: string, io: StorageFs): Reading[] {
  const newest = new NewestLines();
  scanFile(file, 0, (env, line) => {
    newest.note(env.seq);
    newest.offer(env, line);
  }, io);
  return [...newest.lines()].map(({ env, line }) => readingOfLine(env, line));
}

function lineReading(line: string, receivedAt: number): Reading | undefined {
  const env = typeof line === 'string' ? parseEnvelope(line) : undefined;
  return env && readingOfLine(env, line, receivedAt);
}
