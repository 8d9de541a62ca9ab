import type { ReadFs } from '../ndjson/read-fs.js';
import { lastSeq } from '../ndjson/ends.js';

// Journal lines lost whole (a line deleted by hand, an older journal restored): the lines
// around them say what the lost one said, since nothing goes to the site while a run is
// active (a run's stop has the site seq of its start) and a run file only grows while its run
// is active. Put back in memory, so that no recorded event is hidden; each repair is told.

/** One line of the timeline file (timeline.ts reads and writes them). */
export interface TimelineLine {
  /** `run_removed`: retention deleted the run's file (site_seq and run_seq 0). */
  event: 'run_start' | 'run_stop' | 'run_removed';
  at: string;
  run_id: string;
  file: string;
  /** The site seq when the run started or stopped. */
  site_seq: number;
  /** The run file's seq when the run started (the run's events follow it) or stopped. */
  run_seq: number;
  /** A stop whose run_seq is only what was known (a run that could not resume after a crash): its end is unknown. */
  end_unknown?: true;
}

/**
 * The journal's lines with the lost ones put back: a start while another run is open (that
 * run's stop lost: closed at its start's site seq, at the seq where the next start of its file
 * continues, else its file's last), a stop with no start (the start lost: placed at the stop's
 * site seq), and a stopped run whose file holds more than its last stop says (the stop's seq
 * lost or older: it covers its file). `found` hears each repair, in words.
 */
export function repairLost(lines: readonly TimelineLine[], io: ReadFs, found: (message: string) => void): TimelineLine[] {
  const out: TimelineLine[] = [];
  let open: TimelineLine | undefined;
  const reached = new Map<string, number>(); // file -> the run seq its lines journaled last
  for (const line of lines) {
    if (line.event === 'run_start') {
      if (open) {
        const runSeq = open.file === line.file ? line.run_seq : Math.max(open.run_seq, readableLastSeq(open.file, io));
        out.push({ event: 'run_stop', at: line.at, run_id: open.run_id, file: open.file, site_seq: open.site_seq, run_seq: runSeq });
        found(`run ${open.run_id}'s stop is not in it (a line lost): closed at seq ${runSeq} and site seq ${open.site_seq}, before run ${line.run_id} started`);
      }
      open = line;
    } else if (line.event === 'run_stop' && !open) {
      const runSeq = reached.get(line.file) ?? 0;
      out.push({ event: 'run_start', at: line.at, run_id: line.run_id, file: line.file, site_seq: line.site_seq, run_seq: runSeq });
      found(`run ${line.run_id}'s start is not in it (a line lost): its seqs ${runSeq + 1}..${line.run_seq} are placed at site seq ${line.site_seq}`);
    } else if (line.event === 'run_stop' && open?.run_id === line.run_id && open.file === line.file) {
      open = undefined;
    }
    out.push(line);
    if (line.event !== 'run_removed') reached.set(line.file, line.run_seq);
  }
  return coverFiles(out, open, io, found);
}

// a stopped run's file holding seqs past its last journaled stop: the stop covers them (they were recorded in that run)
function coverFiles(lines: TimelineLine[], open: TimelineLine | undefined, io: ReadFs, found: (message: string) => void): TimelineLine[] {
  const lastStop = new Map<string, number>();
  lines.forEach((line, i) => {
    if (line.event === 'run_stop') lastStop.set(line.file, i);
    else if (line.event === 'run_removed') lastStop.delete(line.file);
  });
  for (const [file, i] of lastStop) {
    const stop = lines[i]!;
    if (stop.end_unknown || open?.file === file || lines.slice(i).some((l) => l.event === 'run_start' && l.file === file)) continue;
    const holds = readableLastSeq(file, io);
    if (holds <= stop.run_seq) continue;
    found(`run ${stop.run_id}'s file holds seqs up to ${holds}, past its journaled stop at seq ${stop.run_seq} (a line lost or older): they are served with it`);
    lines[i] = { ...stop, run_seq: holds };
  }
  return lines;
}

/** The last seq of a plain run file (a `.gz` or a file away: 0, nothing to cover). */
function readableLastSeq(file: string, io: ReadFs): number {
  try {
    return lastSeq(file, undefined, io);
  } catch {
    return 0;
  }
}
