// Medians, spreads and the printed table of the benchmark.

/** The median of numbers (NaN for none). */
export function median(xs) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The noise of repeated figures: (max - min) / median, as a percentage. */
export function spreadPct(xs) {
  const s = xs.filter((x) => Number.isFinite(x));
  if (s.length < 2) return 0;
  return ((Math.max(...s) - Math.min(...s)) / median(s)) * 100;
}

/** Summarise rounds of {rps, p50, p99}: medians, and the spread of req/s. */
export function summarise(runs) {
  return {
    rounds: runs.length,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    rpsSpreadPct: spreadPct(runs.map((r) => r.rps)),
    runs,
  };
}

const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : '-');

/** One printed row: name, req/s, p50, p99, ratio to the baseline (and p99 ratio), noise, target. */
export function row(name, s, base, target = '') {
  const ratio = base ? s.ratio : undefined;
  const cells = [
    name.padEnd(34), fmt(s.rps).padStart(8), fmt(s.p50, 2).padStart(7), fmt(s.p99, 2).padStart(7),
    (ratio === undefined ? '' : `${fmt(ratio, 2)}x`).padStart(6),
    (base ? `${fmt(s.p99Ratio, 2)}x` : '').padStart(6),
    `±${fmt(s.rpsSpreadPct / 2, 0)}%`.padStart(6), target,
  ];
  return cells.join('  ');
}

/** The header of the printed table. */
export const HEADER = `${'run'.padEnd(34)}  ${'req/s'.padStart(8)}  ${'p50 ms'.padStart(7)}  ${'p99 ms'.padStart(7)}  ${'ratio'.padStart(6)}  ${'p99 x'.padStart(6)}  ${'noise'.padStart(6)}  target`;
