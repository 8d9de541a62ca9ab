import fs from 'node:fs';
import { siteDayKey } from '../lib/day-key.js';
import type { NightReport } from '../lib/night-report.js';
import { nightHtml } from '../night/night-html.js';
import { nightMarkdown } from '../night/night-markdown.js';
import { nightText } from '../night/night-text.js';
import { spellingsOf } from '../night/spellings.js';
import { connect } from './connect.js';
import { say, show, type CliIo } from './io.js';
import { noExtraArguments, switchOption, textOption, UsageError, type ParsedOptions } from './options.js';

// `telemetry night [YYYYMMDD | --run ID] [--json | --md | --html FILE]`: the night report
// (docs/reports.md). Without a day: the site day now (at 08:00, the night just ended).

const DAY = /^\d{8}$/;

/** Print (or write as HTML) the report of a night or a run. */
export async function runNight(dayArg: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const run = textOption(opts, 'run');
  const html = textOption(opts, 'html');
  const json = switchOption(opts, 'json');
  const md = switchOption(opts, 'md');
  if ([json, md, html !== undefined].filter(Boolean).length > 1) throw new UsageError('--json, --md and --html cannot be used together');
  const day = dayArg === undefined ? undefined : String(dayArg);
  if (day !== undefined && run !== undefined) throw new UsageError('give a night (YYYYMMDD) or --run ID, not both');
  if (day !== undefined && !DAY.test(day)) throw new UsageError(`the night must be a site day as YYYYMMDD, such as 20260317; got ${JSON.stringify(day)}`);
  const { client } = connect(opts, io);
  try {
    const text = await client.nightReportText(run !== undefined ? { run } : { night: day ?? siteDayKey(new Date(io.now())) });
    const report = JSON.parse(text) as NightReport;
    const spelled = spellingsOf(text);
    if (json) show(io, `${text}\n`);
    else if (md) show(io, nightMarkdown(report, spelled));
    else if (html !== undefined) {
      writeHtml(html, nightHtml(report, spelled));
      say(io, `wrote ${html}`);
    } else show(io, `${nightText(report, spelled, io.stdoutIsTTY ? Math.max(40, io.columns) : 80).join('\n')}\n`);
    return 0;
  } finally {
    client.close();
  }
}

/** Write the HTML page; a file that cannot be written is a usage error naming why. */
function writeHtml(file: string, page: string): void {
  try {
    fs.writeFileSync(file, page);
  } catch (error) {
    throw new UsageError(`--html ${file} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}
