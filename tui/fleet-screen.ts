import { displayWidth, headOfWidth } from '../lib/display-width.js';
import { fitText, printable } from '../table/format.js';
import { columnLines, fleetTotals, needsLook, unitCells, UNIT_HEADS, type FleetUnit } from '../table/fleet-units.js';

// What the fleet console shows for one answer of the database, as lines that fit the
// terminal: a title, the totals (or the database's failure), the column heads, one row per
// unit in the table's order (silent and stale first) and, when they do not all fit, the last
// row says how many more there are. Pure: blessed draws the lines (fleet-console.ts).

/** How a line is drawn: its colour follows the unit's state. */
export type FleetTone = 'title' | 'heads' | 'silent' | 'warn' | 'plain' | 'marker' | 'failure';

/** One line of the screen. */
export interface FleetLine {
  text: string;
  tone: FleetTone;
}

/** What one frame shows. */
export interface FleetFrame {
  /** The last answer of the database (undefined: none yet). */
  units: readonly FleetUnit[] | undefined;
  /** The last poll's failure, when it failed (the units shown are then the last good answer). */
  failure: string | undefined;
  /** The database and table, as shown in the title (password hidden). */
  where: string;
  intervalMs: number;
}

/** The UNIT column's widest: a longer unit id is cut with … so that the other columns fit 80 columns (`telemetry fleet` prints it whole). */
export const UNIT_COLUMN = 20;
/** The UNIT column's narrowest, when the other columns need more room (long versions, lags). */
const UNIT_COLUMN_MIN = 12;

/**
 * The lines of a frame for a width x height terminal (height lines, each at most width columns).
 * The units come first: on a short terminal the footer goes, then the title, then the column
 * heads, then the totals, so that at least one unit's row or the `+N more` marker shows.
 */
export function fleetScreenLines(frame: FleetFrame, width: number, height: number): FleetLine[] {
  const units = frame.units ?? [];
  const fit = (text: string) => fitText(text, width).trimEnd();
  const said = frame.failure !== undefined ? `${frame.failure}${frame.units ? '; showing its last answer' : ''}` : frame.units ? fleetTotals(units) : 'waiting for the database';
  // the totals (or the failure) wrap onto a second line rather than being cut, when the height allows
  const status: FleetLine[] = wrapped(said, width, height >= 6 ? 2 : 1).map((text) => ({ text, tone: frame.failure !== undefined ? 'failure' : 'plain' }));
  const table = tableLines(units, width).map(fit);
  const title: FleetLine = { text: fit(`meridian fleet  ${frame.where}`), tone: 'title' };
  const heads: FleetLine = { text: units.length > 0 ? table[0]! : '', tone: 'heads' };
  const footer: FleetLine = { text: fit(`q quit   every ${frame.intervalMs / 1000} s   telemetry fleet lists every unit`), tone: 'heads' };
  // what the height leaves of the chrome, in the order it gives way: footer, title, heads, totals
  // (kept while there is no unit to show: it says why, or that the database is awaited)
  const top = height >= 5 ? [title, ...status, heads] : height === 4 ? [...status, heads] : height === 3 || units.length === 0 ? status : [];
  const room = Math.max(1, height - top.length - (height >= 6 ? 1 : 0));
  const fits = units.length <= room;
  const shown = fits ? units.length : room - 1;
  const rows = units.slice(0, shown).map((u, i): FleetLine => ({ text: table[i + 1]!, tone: u.state === 'silent' ? 'silent' : needsLook(u) ? 'warn' : 'plain' }));
  if (!fits) rows.push({ text: fit(`+${units.length - shown} more`), tone: 'marker' });
  const lines: FleetLine[] = [...top, ...rows];
  if (height >= 6) {
    while (lines.length < height - 1) lines.push({ text: '', tone: 'plain' });
    lines.push(footer);
  }
  return lines.slice(0, Math.max(0, height));
}

// `text` in at most `lines` lines of `width` columns, broken after a comma or semicolon where it
// can be (else at a space), the next lines indented by two spaces; the last line cut with …
function wrapped(text: string, width: number, lines: number): string[] {
  const out: string[] = [];
  let rest = printable(text).replace(/[\t\n]/g, ' ');
  while (out.length < lines - 1 && displayWidth(rest) > width) {
    const head = headOfWidth(rest, width);
    const at = Math.max(head.lastIndexOf(', '), head.lastIndexOf('; '));
    const cut = at > 0 ? at + 1 : head.lastIndexOf(' ');
    if (cut <= 2) break;
    out.push(rest.slice(0, cut).trimEnd());
    rest = `  ${rest.slice(cut).trimStart()}`;
  }
  return [...out, fitText(rest, width).trimEnd()];
}

// the heads and a row per unit, the UNIT column cut to what the other columns leave of the width (12-20 columns)
function tableLines(units: readonly FleetUnit[], width: number): string[] {
  const rows = [[...UNIT_HEADS] as string[], ...units.map(unitCells)];
  const others = UNIT_HEADS.slice(1).reduce((sum, _, i) => sum + 2 + Math.max(...rows.map((r) => displayWidth(r[i + 1]!))), 0);
  const unitWidth = Math.min(UNIT_COLUMN, Math.max(UNIT_COLUMN_MIN, width - others));
  return columnLines(rows.map((r) => r.map((cell, i) => (i === 0 ? fitText(cell, unitWidth).trimEnd() : cell))));
}
