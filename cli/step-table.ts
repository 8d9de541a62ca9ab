import { displayWidth } from '../lib/display-width.js';
import { fitText } from '../table/format.js';
import type { StepRow } from './history-step.js';

// `history --step` on a terminal: the buckets as a table that fits the terminal's columns. Every
// number is shown exactly when it can be: as recorded (min, max, gap_s) or in its shortest
// round-trip form (the means, as --json has them; -0 stays -0, 5e-324 stays 5e-324). The first
// layout that fits is taken: everything exact, the field names whole; the means to 6 significant digits; min, max and
// gap_s to 6 digits too; one space between columns; every value to 5, 4, then 3 digits. A value
// shown with fewer digits than it has is marked `~` (rounded, or cut toward zero where rounding
// would pass a double's range: ~1.79769e308, never 1.8e308). In each layout, when the row is
// too wide, the fields are named without `data.` and the FIELD column is cut (by display width,
// with …) down to 5 columns before the next layout is tried. A terminal too narrow for the last
// has its lines cut.

const HEADER = ['START (UTC)', 'FIELD', 'COUNT', 'MIN', 'MEAN', 'TWMEAN', 'MAX', 'GAP_S'];
const EXACT = 17;
const LAYOUTS: readonly { recorded: boolean; gap: number; digits: number; whole?: true }[] = [
  { recorded: true, gap: 2, digits: EXACT, whole: true }, { recorded: true, gap: 2, digits: 6 }, { recorded: false, gap: 2, digits: 6 }, { recorded: false, gap: 1, digits: 6 },
  { recorded: false, gap: 1, digits: 5 }, { recorded: false, gap: 1, digits: 4 }, { recorded: false, gap: 1, digits: 3 },
];
const FIELD_MIN = 5;

/** The rows as table lines (a header first) of at most `columns` display columns. */
export function stepTable(rows: readonly StepRow[], columns: number): string {
  let lines: string[] = [];
  for (const layout of LAYOUTS) {
    lines = laidOut(rows, layout, columns);
    if (lines.every((l) => displayWidth(l) <= columns)) return lines.join('\n') + '\n';
  }
  return lines.map((l) => (displayWidth(l) <= columns ? l : fitText(l, columns))).join('\n') + '\n';
}

function laidOut(rows: readonly StepRow[], layout: (typeof LAYOUTS)[number], columns: number): string[] {
  const { recorded, gap, digits, whole } = layout;
  const exact = (t: string | undefined) => (recorded ? t ?? '' : significant(t, digits));
  const cells = rows.map((r) => [r.start.slice(0, 16) + 'Z', r.field, r.values.count ?? '', exact(r.values.min),
    significant(r.values.mean, digits), significant(r.values.twmean, digits), exact(r.values.max), recorded ? r.values.gap_s ?? '' : significant(r.values.gap_s, digits)]);
  let widths = HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => displayWidth(c[i]!))));
  const others = widths.reduce((a, b) => a + b, 0) - widths[1]! + gap * (HEADER.length - 1);
  if (others + widths[1]! > columns && whole !== true) {
    // every field is a member of data: without room, its name is shown without `data.`
    for (const c of cells) c[1] = c[1]!.replace(/^data\./, '');
    widths = HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => displayWidth(c[i]!))));
  }
  if (whole !== true) widths[1] = Math.max(FIELD_MIN, Math.min(widths[1]!, columns - others));
  const line = (c: readonly string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[0]!) : i === 1 ? fitText(v, widths[1]!) : v.padStart(widths[i]!)))
    .join(' '.repeat(gap)).trimEnd();
  return [line(HEADER), ...cells.map(line)];
}

/**
 * A number's text to at most `digits` significant digits: its shortest round-trip form when that
 * has no more digits (or `digits` rounds back to the same double: 5e-324, not 4.94066e-324),
 * else `~` and the rounded number (3.98248e17, ~-1.23457e-4, ~0.24994; null as -, -0 as -0).
 */
export function significant(text: string | undefined, digits: number): string {
  if (text === undefined) return '';
  if (text === 'null') return '-';
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const rounded = toDigits(n, digits);
  return rounded === n ? shortest(n) : `~${shortest(rounded)}`;
}

// the shorter of plain and exponent forms of a double, each its shortest round-trip text
function shortest(n: number): string {
  const plain = String(n);
  const exponent = n.toExponential().replace('e+', 'e');
  return exponent.length < plain.length ? exponent : plain;
}

// `n` to `digits` significant digits: rounded, or cut toward zero where rounding would pass a
// double's range (1.7976931348623157e308 to 6 digits: 1.79769e308, not Infinity)
function toDigits(n: number, digits: number): number {
  const rounded = Number(n.toPrecision(digits));
  if (Number.isFinite(rounded)) return rounded;
  const [mantissa, exponent] = n.toExponential(EXACT).split('e') as [string, string];
  return Number(`${mantissa.slice(0, mantissa.indexOf('.') + digits)}e${exponent}`);
}
