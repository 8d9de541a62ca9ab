import { fitText } from '../table/format.js';
import { columnLines, fleetTotals, unitCells, UNIT_HEADS, type FleetUnit } from '../table/fleet-units.js';

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

/** The rows above and below the units: title, totals, column heads; footer. */
const CHROME = 4;

/** The UNIT column's widest: a longer unit id is cut with … so that the other columns fit 80 columns (`telemetry fleet` prints it whole). */
export const UNIT_COLUMN = 20;

/** The lines of a frame for a width x height terminal (height lines, each at most width columns). */
export function fleetScreenLines(frame: FleetFrame, width: number, height: number): FleetLine[] {
  const units = frame.units ?? [];
  const fit = (text: string) => fitText(text, width).trimEnd();
  const status: FleetLine = frame.failure !== undefined
    ? { text: fit(`${frame.failure}${frame.units ? '; showing its last answer' : ''}`), tone: 'failure' }
    : { text: fit(frame.units ? fleetTotals(units) : 'waiting for the database'), tone: 'plain' };
  const cells = (u: FleetUnit) => unitCells(u).map((cell, i) => (i === 0 ? fitText(cell, UNIT_COLUMN).trimEnd() : cell));
  const table = columnLines([[...UNIT_HEADS], ...units.map(cells)]).map(fit);
  const room = Math.max(1, height - CHROME);
  const fits = units.length <= room;
  const shown = fits ? units.length : room - 1;
  const rows = units.slice(0, shown).map((u, i): FleetLine => ({ text: table[i + 1]!, tone: u.state === 'silent' ? 'silent' : u.state === 'ok' ? 'plain' : 'warn' }));
  if (!fits) rows.push({ text: fit(`+${units.length - shown} more`), tone: 'marker' });
  const lines: FleetLine[] = [
    { text: fit(`meridian fleet  ${frame.where}`), tone: 'title' },
    status,
    { text: units.length > 0 ? table[0]! : '', tone: 'heads' },
    ...rows,
  ];
  while (lines.length < height - 1) lines.push({ text: '', tone: 'plain' });
  lines.push({ text: fit(`q quit   every ${frame.intervalMs / 1000} s   telemetry fleet lists every unit`), tone: 'heads' });
  return lines.slice(0, height);
}
