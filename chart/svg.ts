import { boundsOf, fractionOf, joinedRuns, niceTicks, timeLabel, timeTicks, valueLabels, type ChartOptions, type Series } from './series.js';

// A chart as SVG text (for the HTML report, `plot --svg` and `--png`): axes with round values
// and times, one polyline per series in its own colour, a legend. Pure: text out.

/** The colours of the series, in order (then again). */
export const SERIES_COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];
/** Margins of the plot area inside the SVG: left, right, top, bottom. */
export const MARGIN = { left: 60, right: 16, top: 28, bottom: 36 };

/** An SVG document of `options.width` x `options.height` pixels. */
export function svgChart(series: readonly Series[], options: ChartOptions): string {
  const { width, height, zone } = options;
  const { x0, x1, y0, y1 } = boundsOf(series, options);
  const pw = width - MARGIN.left - MARGIN.right;
  const ph = height - MARGIN.top - MARGIN.bottom;
  const toX = (x: number) => MARGIN.left + ((x - x0) / (x1 - x0)) * pw;
  const toY = (y: number) => MARGIN.top + (1 - fractionOf(y, y0, y1)) * ph;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  if (options.title) parts.push(`<text x="${MARGIN.left}" y="18" font-size="13" font-weight="bold">${escapeXml(options.title)}</text>`);
  const ticks = niceTicks(y0, y1, 5);
  valueLabels(ticks).forEach((label, i) => {
    const y = fixed(toY(ticks[i]!));
    parts.push(`<line x1="${MARGIN.left}" y1="${y}" x2="${width - MARGIN.right}" y2="${y}" stroke="#e0e0e0"/>`,
      `<text x="${MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(label)}</text>`);
  });
  for (const ms of timeTicks(x0, x1, Math.max(2, Math.floor(pw / 70)), zone)) {
    parts.push(`<line x1="${fixed(toX(ms))}" y1="${MARGIN.top}" x2="${fixed(toX(ms))}" y2="${height - MARGIN.bottom}" stroke="#f0f0f0"/>`,
      `<text x="${fixed(toX(ms))}" y="${height - MARGIN.bottom + 16}" text-anchor="middle">${escapeXml(timeLabel(ms, x1 - x0, zone))}</text>`);
  }
  parts.push(`<polyline points="${MARGIN.left},${MARGIN.top} ${MARGIN.left},${height - MARGIN.bottom} ${width - MARGIN.right},${height - MARGIN.bottom}" fill="none" stroke="#000000"/>`);
  series.forEach((s, i) => {
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length]!;
    for (const run of joinedRuns(s)) {
      const points = run.map(([x, y]) => `${fixed(toX(x))},${fixed(toY(y))}`).join(' ');
      // a lone point is drawn as a dot (a polyline of one point shows nothing)
      if (run.length === 1) parts.push(`<circle cx="${fixed(toX(run[0]![0]))}" cy="${fixed(toY(run[0]![1]))}" r="2" fill="${colour}"/>`);
      else parts.push(`<polyline points="${points}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    }
    parts.push(`<text x="${MARGIN.left + 8 + i * 140}" y="${height - 6}" fill="${colour}">${escapeXml(s.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** Text made safe inside an SVG or HTML element or attribute. */
export function escapeXml(text: string): string {
  // characters XML does not allow at all become U+FFFD
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function fixed(n: number): string {
  return String(Math.round(n * 10) / 10);
}
