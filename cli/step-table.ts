import { displayWidth } from '../lib/display-width.js';
import { fitText } from '../table/format.js';
import type { StepRow } from './history-step.js';

// `history --step` on a terminal: the buckets as a table that fits the terminal's columns. The
// first layout that fits is taken: min and max as recorded and the means to 6 significant
// digits; then min, max and gap_s to 6 digits too; then one space between columns; then every
// value to 5, 4, then 3 digits. In each, when the row is too wide, the fields are named without
// `data.` and the FIELD column is cut (by display width, with …) down to 5 columns before the
// next layout is tried. A terminal too narrow for the last has its lines cut.

const HEADER = ['START (UTC)', 'FIELD', 'COUNT', 'MIN', 'MEAN', 'TWMEAN', 'MAX', 'GAP_S'];
const LAYOUTS: readonly { recorded: boolean; gap: number; digits: number }[] = [
  { recorded: true, gap: 2, digits: 6 }, { recorded: false, gap: 2, digits: 6 }, { recorded: false, gap: 1, digits: 6 },
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
  const { recorded, gap, digits } = layout;
  const exact = (t: string | undefined) => (recorded ? t ?? '' : significant(t, digits));
  const cells = rows.map((r) => [r.start.slice(0, 16) + 'Z', r.field, r.values.count ?? '', exact(r.values.min),
    significant(r.values.mean, digits), significant(r.values.twmean, digits), exact(r.values.max), recorded ? r.values.gap_s ?? '' : significant(r.values.gap_s, digits)]);
  let widths = HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => displayWidth(c[i]!))));
  const others = widths.reduce((a, b) => a + b, 0) - widths[1]! + gap * (HEADER.length - 1);
  if (others + widths[1]! > columns) {
    // every field is a member of data: without room, its name is shown without `data.`
    for (const c of cells) c[1] = c[1]!.replace(/^data\./, '');
    widths = HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => displayWidth(c[i]!))));
  }
  widths[1] = Math.max(FIELD_MIN, Math.min(widths[1]!, columns - others));
  const line = (c: readonly string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[0]!) : i === 1 ? fitText(v, widths[1]!) : v.padStart(widths[i]!)))
    .join(' '.repeat(gap)).trimEnd();
  return [line(HEADER), ...cells.map(line)];
}

/** A number's text to `digits` significant digits, the shorter of plain and exponent forms: 3.98248e17, -1.23457e-4, 0.24994 (null as -). */
export function significant(text: string | undefined, digits: number): string {
  if (text === undefined) return '';
  if (text === 'null') return '-';
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  if (n === 0) return '0';
  const plain = trimmed(n.toPrecision(digits));
  const exponent = trimmed(n.toExponential(digits - 1));
  return exponent.length < plain.length ? exponent : plain;
}

// 1.50000e+17 as 1.5e17, 0.250000 as 0.25
function trimmed(text: string): string {
  const [mantissa, exponent] = text.split('e');
  const short = mantissa!.includes('.') ? mantissa!.replace(/\.?0+$/, '') : mantissa!;
  return exponent === undefined ? short : `${short}e${exponent.replace('+', '')}`;
}
