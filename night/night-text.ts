import type { NightReport } from '../lib/night-report.js';
import { sectionsOf, summaryLines, type Section, type Spellings } from './night-words.js';

// The night report for a terminal: plain lines that fit `width` columns (80 by default).

/** The report as lines of at most `width` characters. */
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
  const widths = s.columns.map((_, i) => Math.max(...rows.map((r) => [...r[i]!].length)));
  const room = width - 2 - 2 * (widths.length - 1);
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const i = widths.indexOf(Math.max(...widths));
    widths[i] = widths[i]! - 1;
  }
  return rows.map((r) => `  ${r.map((cell, i) => fit(cell, widths[i]!, s.right.includes(i))).join('  ')}`.trimEnd());
}

function fit(cell: string, width: number, right: boolean): string {
  const chars = [...cell];
  const text = chars.length > width ? `${chars.slice(0, Math.max(0, width - 1)).join('')}…` : cell;
  const pad = ' '.repeat(Math.max(0, width - [...text].length));
  return right ? pad + text : text + pad;
}

function wrap(line: string, width: number): string[] {
  const out: string[] = [];
  let rest = line;
  while ([...rest].length > width) {
    const chars = [...rest];
    const cut = chars.slice(0, width).join('').lastIndexOf(' ');
    const at = cut > 0 ? cut : width;
    out.push(chars.slice(0, at).join('').trimEnd());
    rest = `  ${chars.slice(at).join('').trimStart()}`;
  }
  out.push(rest);
  return out;
}
