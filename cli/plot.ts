import fs from 'node:fs';
import { brailleChart } from '../chart/braille.js';
import type { ChartOptions, Series } from '../chart/series.js';
import { svgChart } from '../chart/svg.js';
import type { RollupAnswer } from '../lib/wire.js';
import { connect } from './connect.js';
import { DURATION, spanMs } from './durations.js';
import { stepOptions } from './history-step.js';
import { timeOption } from './history.js';
import { say, show, type CliIo } from './io.js';
import { switchOption, textOption, UsageError, type ParsedOptions } from './options.js';
import { byType, plotSpec, seriesOf } from './plot-series.js';

// `telemetry plot TYPE.FIELD [...]`: a chart of each field's mean per rollup bucket
// (GET /history?step=auto, docs/rollups.md) in the terminal (braille, with axes), or an
// image with --svg / --png. The last 12 hours unless --since or --from/--to say otherwise.

/** The size of the image --svg and --png write (pixels). */
export const IMAGE = { width: 800, height: 320 };
const CHART_HEIGHT = 12;

/** Plot the fields; exit 0 (also when there is nothing to plot, said on stderr). */
export async function runPlot(first: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  const rest = Array.isArray(opts._) ? opts._.map(String) : [];
  if (first === undefined) throw new UsageError('TYPE.FIELD is required: what to plot, such as weather.temp_c');
  const specs = [String(first), ...rest].map(plotSpec);
  const since = textOption(opts, 'since');
  const from = timeOption(opts, 'from');
  const to = timeOption(opts, 'to');
  if (since !== undefined && from !== undefined) throw new UsageError('--since and --from cannot be used together');
  if (since !== undefined) spanMs('--since', since.startsWith('-') ? since.slice(1) : since);
  const duration = DURATION.exec(since ?? (from === undefined ? '12h' : ''));
  const svg = textOption(opts, 'svg');
  const png = textOption(opts, 'png');
  const zone = switchOption(opts, 'utc') ? 'utc' : 'system';
  const columns = io.stdoutIsTTY ? Math.max(40, io.columns) : 80;
  const image = svg !== undefined || png !== undefined;
  // enough buckets for every dot of the chart's width (braille: 2 per column), or the image's pixels / 2
  const width = String(image ? IMAGE.width / 2 : columns * 2);
  const step = textOption(opts, 'step') ?? 'auto';
  const rollup = stepOptions(step === 'auto' ? { ...opts, width: textOption(opts, 'width') ?? width } : opts, step,
    duration ? `-${duration[1]}${duration[2]}` : from, to);
  const { client } = connect(opts, io);
  const answers: RollupAnswer[] = [];
  try {
    for (const [type, fields] of byType(specs)) answers.push(await client.rollup(type, { ...rollup, fields }));
  } finally {
    client.close();
  }
  const series = specs.map((s) => seriesOf(answers.find((a) => a.type === s.type)!, s.field));
  for (const s of series.filter((x) => x.points.length === 0)) say(io, `no readings of ${s.name} in that span`);
  const drawn = series.filter((s) => s.points.length > 0);
  const steps = [...new Set(answers.map((a) => a.step))].join(', ');
  // the time axis is the span asked for (the daemon's answer says it), readings or not
  const domain = { from: Math.min(...answers.map((a) => Date.parse(a.from))), to: Math.max(...answers.map((a) => Date.parse(a.to))) };
  if (image) {
    const text = svgChart(drawn, { ...IMAGE, ...domain, zone, title: `${drawn.map((s) => s.name).join(', ')} (mean per ${steps})` });
    if (svg !== undefined) writeImage(svg, '--svg', text);
    if (png !== undefined) writeImage(png, '--png', await pngOf(text));
    return 0;
  }
  for (const s of drawn) show(io, `${chartText(s, steps, { zone, width: columns, height: CHART_HEIGHT, ...domain })}\n`);
  return 0;
}

/** One field's chart for the terminal: a title line, then the braille chart. */
function chartText(s: Series, steps: string, options: ChartOptions): string {
  const title = `${s.name} (mean per ${steps}, ${options.zone === 'utc' ? 'UTC' : 'local time'})`;
  return [title, ...brailleChart([s], options)].join('\n');
}

/** The SVG drawn as PNG (resvg: a renderer from npm, no browser). */
async function pngOf(svg: string): Promise<Buffer> {
  const { Resvg } = await import('@resvg/resvg-js');
  return new Resvg(svg, { background: '#ffffff', font: { loadSystemFonts: true } }).render().asPng();
}

/** Write an image; a file that cannot be written is a usage error naming why. */
function writeImage(file: string, option: string, content: string | Buffer): void {
  try {
    fs.writeFileSync(file, content);
  } catch (error) {
    throw new UsageError(`${option} ${file} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}
