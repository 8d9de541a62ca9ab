import { escapeXml, MARGIN } from './svg.js';

// A band chart as SVG: stretches of time in colours (safe, unsafe, unknown), on the same
// horizontal scale as svgChart's plot area, so the two line up one above the other.

/** One stretch of a band: [from, to) in epoch ms, its colour and a label for its tooltip. */
export interface BandStretch {
  fromMs: number;
  toMs: number;
  colour: string;
  label: string;
}

/** A band of `width` x `height` pixels over [x0, x1]. */
export function svgBand(stretches: readonly BandStretch[], x0: number, x1: number, options: { width: number; height: number; title?: string }): string {
  const { width, height } = options;
  const pw = width - MARGIN.left - MARGIN.right;
  const toX = (x: number) => MARGIN.left + ((Math.min(x1, Math.max(x0, x)) - x0) / Math.max(1, x1 - x0)) * pw;
  const top = options.title ? 24 : 4;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  if (options.title) parts.push(`<text x="${MARGIN.left}" y="16" font-size="13" font-weight="bold">${escapeXml(options.title)}</text>`);
  for (const s of stretches) {
    const x = toX(s.fromMs);
    const w = toX(s.toMs) - x;
    if (w <= 0) continue;
    parts.push(`<rect x="${x.toFixed(1)}" y="${top}" width="${w.toFixed(1)}" height="${height - top - 4}" fill="${s.colour}"><title>${escapeXml(s.label)}</title></rect>`);
  }
  parts.push('</svg>');
  return parts.join('\n');
}
