import { displayWidth, headOfWidth } from '../lib/display-width.js';
import type { NightReport } from '../lib/night-report.js';
import { sectionsOf, summaryLines, type Section, type Spellings } from './night-words.js';

// The night report for a terminal: plain lines that fit `width` columns (80 by default), measured
// by display width (a wide East Asian character takes 2 columns, a combining mark none).

/** The report as lines of at most `width` display columns. */
export function nightText(r: NightReport, spelled: Spellings, width = 80): string[] {
  const out = summaryLines(r).flatMap((l) => wrap(l, width));
  for (const s of sectionsOf(r, spelled)) {
    out.push('', s.heading);
    if (s.rows.length === 0) out.push('  none');
    else out.push(...table(s, width));
  }
  return out;
}

/** A section's rows as aligned columns, the widest column cut (with …) to fit. */
function table(s: Section, width: number): string[] {
  const rows = [s.columns, ...s.rows];
  const widths = s.columns.map((_, i) => Math.max(...rows.map((r) => displayWidth(r[i]!))));
  const room = width - 2 - 2 * (widths.length - 1);
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const i = widths.indexOf(Math.max(...widths));
    widths[i] = widths[i]! - 1;
  }
  return rows.map((r) => `  ${r.map((cell, i) => fit(cell, widths[i]!, s.right.includes(i))).join('  ')}`.trimEnd());
}

function fit(cell: string, width: number, right: boolean): string {
  const text = displayWidth(cell) <= width ? cell : roundedToFit(cell, width) ?? `${headOfWidth(cell, width - 1)}…`;
  const pad = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return right ? pad + text : text + pad;
}

const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

// a number too wide for its column is rounded to the significant digits that fit, its exponent
// kept (1.2345678901234567e-05 at 10 columns: 1.23457e-5), never cut: a cut number reads as
// another magnitude (hostile tester J, finding 3); undefined when not a number or nothing fits
function roundedToFit(cell: string, width: number): string | undefined {
  if (!NUMBER.test(cell)) return undefined;
  const value = Number(cell);
  for (let digits = 16; digits >= 1; digits--) {
    const rounded = shorter(value, digits);
    const forms = [String(rounded), rounded.toExponential().replace('e+', 'e')];
    const short = forms.reduce((a, b) => (b.length < a.length ? b : a));
    if (short.length <= width) return short;
  }
  return undefined;
}

// `value` to `digits` significant digits: rounded, or cut toward zero where rounding would pass
// a double's range (1.7976931348623157e308 to 6 digits: 1.79769e308, not Infinity)
function shorter(value: number, digits: number): number {
  const rounded = Number(value.toPrecision(digits));
  if (Number.isFinite(rounded)) return rounded;
  const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
  const sign = mantissa.startsWith('-') ? '-' : '';
  const m = mantissa.slice(sign.length);
  return Number(`${sign}${digits === 1 ? m[0] : m.slice(0, digits + 1)}e${exponent}`);
}

function wrap(line: string, width: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (displayWidth(rest) > width) {
    const first = headOfWidth(rest, width);
    const cut = first.lastIndexOf(' ');
    const at = cut > 0 ? cut : Math.max(1, first.length);
    out.push(rest.slice(0, at).trimEnd());
    rest = `  ${rest.slice(at).trimStart()}`;
  }
  out.push(rest);
  return out;
}
