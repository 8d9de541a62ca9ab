// A sparkline: a series of readings drawn as one line of bar characters, newest on the right.
// Pure float maths (blessed-contrib's sparkline rounds to integers and shows the oldest
// points). Time is bucketed into columns, so gaps in the data show as gaps.

/** One reading of a series: time (epoch ms) and value. */
export interface Point {
  t: number;
  v: number;
}

/** Where and how to draw. */
export interface SparklineOptions {
  /** The time window shown: [from, to), `to` at the right edge. */
  from: number;
  to: number;
  /** Columns. */
  width: number;
  /** ASCII characters instead of Unicode blocks (monochrome terminals). */
  ascii: boolean;
}

const BLOCKS = '▁▂▃▄▅▆▇█';
const ASCII = '_.-~=+*#';

/**
 * The line for `points`: the window split into `width` equal columns, each the mean of its
 * points scaled between the lowest and highest column (all columns equal: the middle level),
 * a column without points a space. Points outside the window are left out.
 */
export function sparkline(points: readonly Point[], o: SparklineOptions): string {
  const width = Math.max(0, Math.floor(o.width));
  if (width === 0 || !(o.to > o.from)) return '';
  const sums = new Array<number>(width).fill(0);
  const counts = new Array<number>(width).fill(0);
  const span = (o.to - o.from) / width;
  for (const p of points) {
    if (!(p.t >= o.from && p.t < o.to) || !Number.isFinite(p.v)) continue;
    const column = Math.min(width - 1, Math.floor((p.t - o.from) / span));
    sums[column]! += p.v;
    counts[column]!++;
  }
  const means = sums.map((s, i) => (counts[i] ? s / counts[i]! : NaN));
  const shown = means.filter((m) => !Number.isNaN(m));
  const lo = Math.min(...shown);
  const hi = Math.max(...shown);
  const chars = o.ascii ? ASCII : BLOCKS;
  const top = chars.length - 1;
  return means.map((m) => {
    if (Number.isNaN(m)) return ' ';
    const level = hi > lo ? Math.round(((m - lo) / (hi - lo)) * top) : Math.floor(top / 2);
    return chars[level]!;
  }).join('');
}
