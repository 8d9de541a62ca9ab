import { DateTime } from 'luxon';
import type { NightReport } from '../lib/night-report.js';
import { printable } from '../lib/terminal-text.js';

// What the text, Markdown and HTML reports share: durations, times in the report's zone, and
// the rows of each section as plain cells (each renderer lays them out its own way).

/** Each weather field's min and max as recorded (the answer's spelling, not JSON.parse's). */
export type Spellings = ReadonlyMap<string, { min: string; max: string }>;

/** Seconds as H:MM:SS (D d H:MM:SS from a day on). */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  const d = Math.floor(s / 86_400);
  const hms = `${Math.floor((s % 86_400) / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  return d > 0 ? `${d}d ${hms}` : hms;
}

/** A ts in the report's zone: `HH:mm:ss`, or with the date (`yyyy-LL-dd HH:mm`). */
export function localTime(ts: string, zone: string, withDate = false): string {
  const dt = DateTime.fromISO(ts, { zone: zone === 'system' ? 'system' : zone });
  return dt.isValid ? dt.toFormat(withDate ? 'yyyy-LL-dd HH:mm' : 'HH:mm:ss') : ts;
}

/** The report's title: the night or the run. */
export function titleOf(r: NightReport): string {
  return inert(r.night !== null ? `Night ${r.night}` : `Run ${r.run_id ?? ''}`);
}

/** A share of the report's seconds as a percentage with one decimal. */
export function share(seconds: number, r: NightReport): string {
  return r.seconds > 0 ? `${((100 * seconds) / r.seconds).toFixed(1)}%` : '-';
}

/** A section: a heading and its rows of cells (empty: the section says "none"). */
export interface Section {
  heading: string;
  columns: string[];
  rows: string[][];
  /** Right-aligned columns (numbers). */
  right: number[];
}

/** Recorded text as one inert cell or line: controls, bidi overrides and line breaks as U+FFFD (a terminal obeys none of them, no line is forged). */
export function inert(text: string): string {
  return printable(text).replace(/\n/g, '\uFFFD');
}

/** The report's sections, in order, as cells (every heading and cell inert). */
export function sectionsOf(r: NightReport, spelled: Spellings): Section[] {
  return rawSections(r, spelled).map((s) => ({ ...s, heading: inert(s.heading), rows: s.rows.map((row) => row.map(inert)) }));
}

function rawSections(r: NightReport, spelled: Spellings): Section[] {
  const z = r.zone;
  const safety = r.safety.recorded
    ? [['safe', duration(r.safety.safe_s), share(r.safety.safe_s, r)], ['unsafe', duration(r.safety.unsafe_s), share(r.safety.unsafe_s, r)],
      ['unknown', duration(r.safety.unknown_s), share(r.safety.unknown_s, r)],
      ...r.safety.reasons.map((x) => [`  ${x.reason}`, duration(x.seconds), share(x.seconds, r)])]
    : [];
  return [
    { heading: 'Runs', columns: ['run', 'first', 'last', 'events'], right: [3], rows: r.runs.map((x) => [x.run_id, localTime(x.first, z), localTime(x.last, z), String(x.events)]) },
    { heading: 'Safety', columns: ['verdict', 'time', 'share'], right: [1, 2], rows: safety },
    { heading: 'Stale', columns: ['type', 'time', 'times'], right: [1, 2], rows: r.stale.map((x) => [x.type, duration(x.seconds), String(x.times)]) },
    { heading: `Alarms (${r.alarms.count})`, columns: ['time', 'alarm', 'from', 'to', 'severity'], right: [],
      rows: r.alarms.listed.map((x) => [localTime(x.ts, z), x.id, x.from, x.to, x.severity]) },
    { heading: `Gaps of ${r.gaps.threshold_s} s or more (${duration(r.gaps.seconds)})`, columns: ['from', 'to', 'time'], right: [2],
      rows: r.gaps.list.map((x) => [localTime(x.from, z), localTime(x.to, z), duration(x.seconds)]) },
    { heading: 'POCS states', columns: ['state', 'time', 'entered'], right: [1, 2], rows: r.states.map((x) => [x.state, duration(x.seconds), String(x.entered)]) },
    { heading: 'Weather', columns: ['field', 'min', 'mean', 'max', 'readings'], right: [1, 2, 3, 4],
      rows: Object.entries(r.weather.fields).map(([k, f]) => [k, spelled.get(k)?.min ?? String(f.min), f.mean === null ? '-' : String(Number(f.mean.toPrecision(6))), spelled.get(k)?.max ?? String(f.max), String(f.count)]) },
    { heading: 'Events per type', columns: ['type', 'events'], right: [1], rows: Object.entries(r.counts).map(([k, n]) => [k, String(n)]) },
  ];
}

/** The lines above the sections: span, events, completeness, restarts (each inert). */
export function summaryLines(r: NightReport): string[] {
  return rawSummary(r).map(inert);
}

function rawSummary(r: NightReport): string[] {
  const z = r.zone;
  const lines = [
    `${titleOf(r)} (${z}): ${localTime(r.from, z, true)} to ${localTime(r.to, z, true)}${r.complete ? '' : `, so far (until ${localTime(r.until, z)})`}`,
    `${r.events} events${r.first_event ? `, first ${localTime(r.first_event, z)}, last ${localTime(r.last_event!, z)}` : ''}`,
  ];
  if (!r.safety.recorded) lines.push('No safety verdicts recorded (meridian.safety): time safe is unknown.');
  if (r.gaps.daemon_started) lines.push(`The daemon (re)started at ${localTime(r.gaps.daemon_started, z)}.`);
  for (const d of r.damaged) lines.push(`Damaged: ${d.file}: ${d.reason}`);
  return lines;
}
