import type { NightReport } from '../lib/night-report.js';
import { sectionsOf, summaryLines, titleOf, type Spellings } from './night-words.js';

// The night report as Markdown (GitHub tables), for a logbook or an issue.

/** The report as Markdown text. */
export function nightMarkdown(r: NightReport, spelled: Spellings): string {
  const out = [`# ${cell(titleOf(r))}`, '', ...summaryLines(r).map((l) => `${cell(l)}  `)];
  for (const s of sectionsOf(r, spelled)) {
    out.push('', `## ${cell(s.heading)}`, '');
    if (s.rows.length === 0) {
      out.push('None.');
      continue;
    }
    out.push(`| ${s.columns.map(cell).join(' | ')} |`, `|${s.columns.map((_, i) => (s.right.includes(i) ? '---:' : '---')).join('|')}|`);
    for (const row of s.rows) out.push(`| ${row.map(cell).join(' | ')} |`);
  }
  return `${out.join('\n')}\n`;
}

/** Recorded text made inert in Markdown: pipes, markup characters and line breaks escaped. */
function cell(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');
}
