import type { ReadFs } from '../ndjson/read-fs.js';
import { LineFile } from './line-file.js';
import { nodeFs, type StorageFs } from './storage-fs.js';
import { lastSeq } from '../ndjson/ends.js';
import type { SitePlaces } from './site-places.js';
import { writeFileAtomic } from './state-files.js';
import { repairLost, type TimelineLine } from './timeline-repair.js';

// The timeline: in which order the site and the runs were written. Site events and run events
// are never written at the same time (while a run is active everything goes to its file), so
// the record order of everything is a sequence of segments: site seqs (a, b], then run 014's
// seqs (r, s], then site seqs (b, c], ... `<site_dir>/.meridian/timeline.ndjson` keeps one line
// per run start and stop with both counters, which is all that order needs.

/** One stretch of the record order: the seqs (after, to] of one stream. */
export interface Segment {
  /** `site`, or the run's id. */
  readonly stream: string;
  /** The run file; undefined for the site (its seqs span the site day files). */
  readonly file: string | undefined;
  /** The last seq of the stream before the segment began. */
  readonly after: number;
  /** The last seq of the segment; Infinity while it is the segment being written. */
  to: number;
  /** The run file was deleted by retention (`run_removed`): its absence is no loss to report. */
  removed?: boolean;
}

/**
 * The end of a run segment whose last seq cannot be known: the run could not resume after a
 * crash and neither its file nor the state files say how far it got. Readers then read
 * everything its file holds after the segment's start; a later start of the run id in the
 * same file ends the segment where that start continues.
 */
export const UNKNOWN_END = Number.MAX_SAFE_INTEGER;


/** The active run as the store recovered it, to reconcile the timeline with after a crash. */
export interface RecoveredRun {
  runId: string;
  file: string;
  /** Byte length of the run file when the run started. */
  startOffset: number;
  /** The seq the run continued after, when its record says (records of earlier versions do not). */
  startSeq?: number;
}

/** The record order of a site directory, kept in memory and journaled to disk. */
export class Timeline {
  private readonly path: string;
  private readonly list: Segment[];
  private readonly io: StorageFs;
  private readonly places: SitePlaces;

  private constructor(file: string, list: Segment[], io: StorageFs, places: SitePlaces) {
    this.path = file;
    this.list = list;
    this.io = io;
    this.places = places;
  }

  /**
   * Read the journal and bring it in line with what the store recovered: a crash between the
   * journal line and the active-run record leaves one of them behind, and the missing line is
   * written now (the counters have not moved since: nothing is written between the two).
   */
  static open(file: string, siteSeq: number, active: RecoveredRun | undefined, at: string, warn: (message: string) => void,
    places: SitePlaces, io: StorageFs = nodeFs, orphanSeq?: number, suspended?: { runId: string; file: string; lastSeq: number; exact: boolean }): Timeline {
    const timeline = new Timeline(file, [{ stream: 'site', file: undefined, after: 0, to: Infinity }], io, places);
    // lines lost whole are put back in memory (Timeline.read, at start-up, told them)
    for (const line of repairLost(readLines(file, warn, io).map((l) => ({ ...l, file: places.place(l.file) })), io, () => {})) timeline.apply(line);
    // written when it can be; the order in memory is right either way (history and replay use it)
    const repair = (line: TimelineLine) => {
      try {
        timeline.append(line);
      } catch (error) {
        warn(`could not write to ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); the record order is repaired in memory only`);
        timeline.apply(line);
      }
    };
    const open = timeline.open();
    const openRun = open.stream === 'site' ? undefined : open;
    if (openRun && (!active || active.runId !== openRun.stream || active.file !== openRun.file)) {
      // the run stopped (or is suspended: its directory is not usable, or its record is lost) and events go to the
      // site; its stop is journaled after every seq it took (`orphanSeq`: its ephemeral readings' and the snapshot's
      // too; `suspended`: what the state files knew of a run that could not resume)
      const mine = suspended && suspended.runId === openRun.stream && suspended.file === openRun.file ? suspended : undefined;
      const runSeq = Math.max(openRun.after, mine?.lastSeq ?? 0, readableLastSeq(openRun.file!, undefined, io), orphanSeq ?? 0);
      if (orphanSeq !== undefined) warn(`run ${openRun.stream} was active but has no active run record (active-run.json lost?): it is closed at seq ${runSeq}; what it recorded stays in /history and /current`);
      // nothing went to the site while it was open: its stop has its start's site seq (site seqs past it, recorded after a stop
      // whose line was lost, stay served after it)
      const started = timeline.list.at(-2);
      const stopSiteSeq = started?.stream === 'site' && Number.isFinite(started.to) ? Math.min(siteSeq, started.to) : siteSeq;
      repair({ event: 'run_stop', at, run_id: openRun.stream, file: openRun.file!, site_seq: stopSiteSeq, run_seq: runSeq,
        ...(mine && !mine.exact ? { end_unknown: true } : {}) });
    }
    if (active && timeline.open().stream === 'site') {
      // the run goes on after its last journaled seq (a crash in the middle of its stop), else
      // after the last line before its start offset (a run older than the journal)
      const journaled = timeline.list.filter((s) => s.file === active.file).map((s) => s.to);
      repair({ event: 'run_start', at, run_id: active.runId, file: active.file, site_seq: siteSeq,
        run_seq: Math.max(active.startSeq ?? readableLastSeq(active.file, active.startOffset, io), ...journaled) });
    }
    return timeline;
  }

  /**
   * The segments a journal records, read only (start-up reads them before the store opens the
   * journal). A journal of an earlier version (absolute paths inside the site directory) is
   * written again with the paths in their recorded form, so it stays right after a move or a copy.
   */
  static read(file: string, warn: (message: string) => void, places: SitePlaces, io: StorageFs = nodeFs,
    found: (message: string) => void = () => {}): readonly Segment[] {
    const timeline = new Timeline(file, [{ stream: 'site', file: undefined, after: 0, to: Infinity }], io, places);
    const lines = readLines(file, warn, io);
    for (const line of repairLost(lines.map((l) => ({ ...l, file: places.place(l.file) })), io, found)) timeline.apply(line);
    if (lines.some((line) => places.stale(line.file))) {
      const text = lines.map((line) => `${JSON.stringify({ ...line, file: places.record(places.place(line.file)) })}\n`).join('');
      try {
        writeFileAtomic(file, (put) => put(Buffer.from(text, 'utf8')), io);
      } catch (error) {
        warn(`could not write ${file} with paths relative to the site directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
    }
    return timeline.list;
  }

  /** The segments in record order (the last one is being written). */
  segments(): readonly Segment[] {
    return this.list;
  }

  /** Journal a run start (synced before the run becomes active). */
  runStarted(runId: string, file: string, siteSeq: number, runSeq: number, at: string): void {
    this.append({ event: 'run_start', at, run_id: runId, file, site_seq: siteSeq, run_seq: runSeq });
  }

  /** Journal a run stop (synced before the run stops being active). */
  runStopped(runId: string, file: string, siteSeq: number, runSeq: number, at: string): void {
    this.append({ event: 'run_stop', at, run_id: runId, file, site_seq: siteSeq, run_seq: runSeq });
  }

  /** After a run start that failed past its journal line: journal the stop (best effort; a restart reconciles). */
  undoStart(runId: string, file: string, siteSeq: number, runSeq: number, at: string): void {
    const open = this.open();
    if (open.stream !== runId || open.file !== file) return;
    try {
      this.runStopped(runId, file, siteSeq, runSeq, at);
    } catch {
      open.to = runSeq;
      this.list.push({ stream: 'site', file: undefined, after: siteSeq, to: Infinity });
    }
  }

  /** After a run stop that failed past its journal line (the run stays active): journal the run going on. */
  undoStop(runId: string, file: string, siteSeq: number, runSeq: number, at: string): void {
    const open = this.open();
    if (open.stream !== 'site' || this.list.length < 2 || this.list[this.list.length - 2]!.file !== file) return;
    try {
      this.runStarted(runId, file, siteSeq, runSeq, at);
    } catch {
      this.list.pop();
      this.list[this.list.length - 1]!.to = Infinity;
    }
  }

  /** Journal that retention deleted a stopped run's file (best effort: its absence is then reported as missing). */
  runFileRemoved(file: string, at: string): void {
    const segment = this.list.find((s) => s.file === file && s.stream !== 'site' && !s.removed);
    if (!segment || segment === this.open()) return;
    this.append({ event: 'run_removed', at, run_id: segment.stream, file, site_seq: 0, run_seq: 0 });
  }

  private open(): Segment {
    return this.list[this.list.length - 1]!;
  }

  private append(line: TimelineLine): void {
    const file = LineFile.open(this.path, this.io);
    try {
      file.append(`${JSON.stringify({ ...line, file: this.places.record(line.file) })}\n`);
      file.syncNow();
    } finally {
      file.close();
    }
    this.apply(line);
  }

  private apply(line: TimelineLine): void {
    if (line.event === 'run_removed') {
      for (const segment of this.list) if (segment.file === line.file && segment.stream === line.run_id) segment.removed = true;
      return;
    }
    const open = this.open();
    if (line.event === 'run_start') {
      if (open.stream !== 'site') open.to = Math.max(open.after, line.run_seq);
      else open.to = Math.max(open.after, line.site_seq);
      // the same run continued in its file: an unknown end is where it continues
      for (const s of this.list) if (s.to === UNKNOWN_END && s.stream === line.run_id && s.file === line.file) s.to = Math.max(s.after, line.run_seq);
      this.list.push({ stream: line.run_id, file: line.file, after: line.run_seq, to: Infinity });
    } else if (open.stream === line.run_id && open.file === line.file) {
      open.to = line.end_unknown ? UNKNOWN_END : Math.max(open.after, line.run_seq);
      this.list.push({ stream: 'site', file: undefined, after: line.site_seq, to: Infinity });
    }
  }
}

/** The last seq of a run file, or 0 when it cannot be read (a run suspended for an unusable directory). */
function readableLastSeq(file: string, end: number | undefined, io: ReadFs): number {
  try {
    return lastSeq(file, end, io);
  } catch {
    return 0;
  }
}

function readLines(file: string, warn: (message: string) => void, io: ReadFs): TimelineLine[] {
  let text: string;
  try {
    text = io.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') warn(`could not read ${file} (${code ?? (error as Error).message}); runs before now are not in the record order`);
    return [];
  }
  // a torn last line: the reconcile at open writes what it should have said (other damage: timelineDamage)
  return text.split('\n').map(journalLine).filter((line): line is TimelineLine => line !== undefined);
}

/** One journal line read, or undefined when it is not one. */
function journalLine(raw: string): TimelineLine | undefined {
  try {
    const line = JSON.parse(raw) as TimelineLine;
    if ((line.event === 'run_start' || line.event === 'run_stop' || line.event === 'run_removed') && typeof line.run_id === 'string'
      && typeof line.file === 'string' && Number.isSafeInteger(line.site_seq) && Number.isSafeInteger(line.run_seq)) return line;
  } catch { /* not a journal line */ }
  return undefined;
}

/**
 * Why a journal cannot be trusted to hold the record order: empty (0 bytes), or a whole line
 * (one ending in a newline) that is not a journal line; undefined when it is sound or missing.
 * A torn last line (no newline: a crash while appending) is no damage.
 */
export function timelineDamage(file: string, io: ReadFs): string | undefined {
  let text: string;
  try {
    text = io.readFileSync(file, 'utf8');
  } catch {
    return undefined; // missing (rebuilt) or unreadable (Timeline.read says so)
  }
  if (text === '') return 'it is empty';
  const whole = text.split('\n').slice(0, -1);
  const bad = whole.findIndex((raw) => journalLine(raw) === undefined);
  return bad === -1 ? undefined : `line ${bad + 1} is not a journal line`;
}
