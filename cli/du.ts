import fs from 'node:fs';
import os from 'node:os';
import { listStoredFiles, type StoredFile } from '../daemon/ndjson/listing.js';
import { SitePlaces } from '../daemon/storage/site-places.js';
import { readIfExists, statePaths } from '../daemon/storage/state-files.js';
import { resolveDaemonConfig } from '../lib/config.js';
import { displayWidth, padEndWidth, padStartWidth } from '../lib/display-width.js';
import { ConfigError } from '../lib/errors.js';
import { CommandFailure, EXIT } from './failure.js';
import { say, show, type CliIo } from './io.js';
import { noExtraArguments, switchOption, textOption, type ParsedOptions } from './options.js';

// `telemetry du`: the space the data files take, per site day and per run, read from the
// site directory itself (no daemon needed) through the daemon's own names and reader rules.

/**
 * Print one line per file of a day or run (both when a day is stored plain and `.gz`), each
 * marked when it is empty, damaged, a duplicate or no site day file at all, and the totals
 * (or their JSON). A damaged file is also named on stderr and makes the exit code 1.
 */
export async function runDu(opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const { siteDir } = resolveDaemonConfig({ siteDir: textOption(opts, 'site-dir') }, io.env, os.homedir());
  checkSiteDir(siteDir);
  const files = listStoredFiles(siteDir, knownRunDirs(siteDir));
  if (switchOption(opts, 'json')) {
    show(io, `${JSON.stringify({ site_dir: siteDir, files: files.map(asJson), total_bytes: total(files) })}\n`);
  } else {
    for (const line of fileLines(files)) show(io, `${line}\n`);
    show(io, `${totalLine(siteDir, files)}\n`);
  }
  const damaged = files.filter((f) => f.state === 'damaged');
  for (const f of damaged) say(io, `damaged: ${f.file}: ${f.reason}`);
  return damaged.length > 0 ? EXIT.DAEMON_ERROR : 0;
}

// kind, name, size, gzip, then what is wrong: columns as wide as their widest cell
function fileLines(files: readonly StoredFile[]): string[] {
  const rows = files.map((f) => [f.kind, f.name, size(f.bytes), f.file.endsWith('.gz') ? 'gzip' : '', f.state === 'ok' ? '' : `${f.state}: ${f.reason}`]);
  // by display width: a run named in wide characters keeps the columns after it aligned
  const width = (i: number) => Math.max(0, ...rows.map((r) => displayWidth(r[i]!)));
  const cell = (r: readonly string[], i: number) => (i === 2 ? padStartWidth(r[i]!, width(i)) : padEndWidth(r[i]!, width(i)));
  return rows.map((r) => `${cell(r, 0)}  ${cell(r, 1)}  ${cell(r, 2)}  ${cell(r, 3)}  ${r[4]}`.trimEnd());
}

function totalLine(siteDir: string, files: readonly StoredFile[]): string {
  const days = files.filter((f) => f.kind === 'day');
  const runs = files.filter((f) => f.kind === 'run');
  const other = files.filter((f) => f.kind === 'unknown');
  const count = (list: readonly StoredFile[]) => new Set(list.map((f) => f.name)).size;
  const parts = [`${count(days)} day(s) ${size(total(days))}`, `${count(runs)} run(s) ${size(total(runs))}`];
  if (other.length > 0) parts.push(`${other.length} unknown file(s) ${size(total(other))}`);
  return `total ${size(total(files))} in ${siteDir} (${parts.join(', ')})`;
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

// the run directories runs.json names (where they are now), read only: a list du cannot read adds none
function knownRunDirs(siteDir: string): string[] {
  try {
    const runs = (JSON.parse(readIfExists(statePaths(siteDir).runs) ?? '{}') as { runs?: unknown }).runs;
    const places = new SitePlaces(siteDir);
    return Array.isArray(runs) ? runs.filter((r) => typeof r?.run_dir === 'string').map((r) => places.place(r.run_dir as string)) : [];
  } catch {
    return [];
  }
}

function asJson(f: StoredFile) {
  return { kind: f.kind, name: f.name, file: f.file, bytes: f.bytes, compressed: f.file.endsWith('.gz'), state: f.state, reason: f.reason ?? null };
}

function total(files: readonly StoredFile[]): number {
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
