import { svgBand, type BandStretch } from '../chart/svg-band.js';
import { escapeXml, svgChart } from '../chart/svg.js';
import type { NightReport } from '../lib/night-report.js';
import { duration, sectionsOf, summaryLines, titleOf, type Spellings } from './night-words.js';

// The night report as one self-contained HTML page: the safety band and a chart per weather
// field as inline SVG (no script, no outside resource), then the tables of every section.

/** Chart sizes in the page (CSS pixels). */
export const HTML_CHART = { width: 760, height: 220, bandHeight: 60 };
/** The band's colours. */
export const BAND_COLOURS = { safe: '#2ca02c', unsafe: '#d62728', unknown: '#9e9e9e' };

/** The report as an HTML document. */
export function nightHtml(r: NightReport, spelled: Spellings): string {
  const fromMs = Date.parse(r.from);
  const zone = r.zone;
  const charts = [
    `<figure>${svgBand(safetyStretches(r), fromMs, Date.parse(r.to), { width: HTML_CHART.width, height: HTML_CHART.bandHeight, title: 'Safety (green safe, red unsafe, grey unknown)' })}</figure>`,
    ...Object.entries(r.weather.fields).map(([name, f]) => `<figure>${svgChart(
      [{ name: `${name} (mean per ${duration((Date.parse(r.to) - fromMs) / 96000)})`, points: f.series.flatMap(([t, v]) => (v === null ? [] : [[Date.parse(t), v] as const])),
        breakMs: 1.5 * ((Date.parse(r.to) - fromMs) / 96) }],
      { width: HTML_CHART.width, height: HTML_CHART.height, zone, title: name, from: fromMs, to: Date.parse(r.to) })}</figure>`),
  ];
  const tables = sectionsOf(r, spelled).map((s) => `<h2>${escapeXml(s.heading)}</h2>\n${s.rows.length === 0 ? '<p>None.</p>' : `<table>
<tr>${s.columns.map((c, i) => `<th${s.right.includes(i) ? ' class="n"' : ''}>${escapeXml(c)}</th>`).join('')}</tr>
${s.rows.map((row) => `<tr>${row.map((c, i) => `<td${s.right.includes(i) ? ' class="n"' : ''}>${escapeXml(c)}</td>`).join('')}</tr>`).join('\n')}
</table>`}`);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(titleOf(r))}</title>
<style>body{margin:0;padding:0 16px;font-family:sans-serif;background:#fff;color:#000}figure{margin:0}h1{margin:8px 0;font-size:20px}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}.n{text-align:right}</style></head>
<body>
<h1>${escapeXml(titleOf(r))}</h1>
${summaryLines(r).map((l) => `<p>${escapeXml(l)}</p>`).join('\n')}
${charts.join('\n')}
${tables.join('\n')}
</body></html>
`;
}

/** The night as stretches of safe, unsafe and unknown (gaps unknown), from the verdict at its start. */
export function safetyStretches(r: NightReport): BandStretch[] {
  const points: { ms: number; key: 'safe' | 'unsafe' | 'unknown'; label: string }[] = [];
  const verdict = (v: { safe: boolean; reasons: string[] } | null) => (v === null ? 'unknown' : v.safe ? 'safe' : 'unsafe');
  points.push({ ms: Date.parse(r.from), key: verdict(r.safety.at_start), label: r.safety.at_start?.reasons.join(', ') ?? '' });
  for (const c of r.safety.changes) points.push({ ms: Date.parse(c.ts), key: verdict(c), label: c.reasons.join(', ') });
  const stretches: BandStretch[] = [];
  const untilMs = Date.parse(r.until);
  // past the last change listed (a verdict that flapped more than the report lists), nothing is drawn as known
  if (r.safety.change_count > r.safety.changes.length) points.push({ ms: Date.parse(r.safety.changes.at(-1)!.ts) + 1, key: 'unknown', label: 'more changes than listed' });
  points.forEach((p, i) => {
    const toMs = Math.min(untilMs, points[i + 1]?.ms ?? untilMs);
    stretches.push({ fromMs: p.ms, toMs, colour: BAND_COLOURS[p.key], label: `${p.key}${p.label ? `: ${p.label}` : ''}` });
  });
  // gaps drawn over it: nothing was recorded, so nothing is known
  for (const g of r.gaps.list) stretches.push({ fromMs: Date.parse(g.from), toMs: Date.parse(g.to), colour: BAND_COLOURS.unknown, label: 'gap: nothing recorded' });
  return stretches;
}
