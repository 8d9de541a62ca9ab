import fs from 'node:fs';
import os from 'node:os';
import { listDataFiles, type DataFile } from '../daemon/ndjson/listing.js';
import { resolveDaemonConfig } from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';
import { CommandFailure } from './failure.js';
import { show, type CliIo } from './io.js';
import { noExtraArguments, switchOption, textOption, type ParsedOptions } from './options.js';

// `telemetry du`: the space the data files take, per site day and per run, read from the
// site directory itself (no daemon needed).

/** Print one line per data file and a total (or their JSON). */
export async function runDu(opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const { siteDir } = resolveDaemonConfig({ siteDir: textOption(opts, 'site-dir') }, io.env, os.homedir());
  checkSiteDir(siteDir);
  const files = listDataFiles(siteDir);
  if (switchOption(opts, 'json')) {
    show(io, `${JSON.stringify({ site_dir: siteDir, files: files.map(asJson), total_bytes: total(files) })}\n`);
    return 0;
  }
  const rows = files.map((f) => [f.kind, f.name, size(f.bytes), f.file.endsWith('.gz') ? 'gzip' : '']);
  const width = (i: number) => Math.max(0, ...rows.map((r) => r[i]!.length));
  for (const row of rows) show(io, `${row[0]!.padEnd(4)} ${row[1]!.padEnd(width(1))}  ${row[2]!.padStart(width(2))}  ${row[3]}`.trimEnd() + '\n');
  const days = files.filter((f) => f.kind === 'day');
  const runs = files.filter((f) => f.kind === 'run');
  show(io, `total ${size(total(files))} in ${siteDir} (${days.length} day(s) ${size(total(days))}, ${runs.length} run(s) ${size(total(runs))})\n`);
  return 0;
}

// a site directory that is missing or unreadable is a stated failure (exit 1: "total 0 B" would
// say a mistyped path holds nothing); one that is not a directory is a usage mistake (exit 2)
function checkSiteDir(siteDir: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(siteDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CommandFailure(`no site directory at ${siteDir} (nothing was recorded there, or --site-dir is mistyped)`);
    throw new CommandFailure(`cannot read the site directory ${siteDir} (${code ?? (error as Error).message})`);
  }
  if (!stat.isDirectory()) throw new ConfigError('--site-dir', 'a directory', `${siteDir} (not a directory)`);
  try {
    fs.accessSync(siteDir, fs.constants.R_OK | fs.constants.X_OK);
  } catch (error) {
    throw new CommandFailure(`cannot read the site directory ${siteDir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

function asJson(f: DataFile) {
  return { kind: f.kind, name: f.name, file: f.file, bytes: f.bytes, compressed: f.file.endsWith('.gz') };
}

function total(files: DataFile[]): number {
  return files.reduce((sum, f) => sum + f.bytes, 0);
}

/** Bytes as people read them: `812 B`, `12.3 KiB`, `4.0 MiB`, `1.2 GiB`. */
export function size(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}
