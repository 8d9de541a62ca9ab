import type { StatusAnswer } from '../lib/wire.js';
import { formatUptime } from '../table/format.js';
import { connect } from './connect.js';
import { sinkLine } from './sink-lines.js';
import { show, type CliIo } from './io.js';
import { noExtraArguments, switchOption, type ParsedOptions } from './options.js';

// `telemetry status`: one line about the daemon (GET /status), one about its rollups, one per
// forwarding sink, or its JSON with --json.

/** Print the daemon's status line; exit 3 (through the error path) when none answers. */
export async function runStatus(opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const json = switchOption(opts, 'json');
  const { client, address } = connect(opts, io);
  const status = await client.status();
  const sinks = (status.forward ?? []).map((s) => `${sinkLine(s)}\n`).join('');
  // the files found damaged: what they still hold is served, the rest is not (docs/storage.md)
  const damaged = (status.damaged ?? []).map((d) => `damaged: ${d.file}: ${d.reason}\n`).join('');
  show(io, json ? `${JSON.stringify(status)}\n` : `${statusLine(status, address, io.now())}\n${rollupLine(status)}${sinks}${damaged}`);
  return 0;
}

/**
 * `telemetry daemon at localhost:6562  pid 1234  version 0.1.0  up 3m12s  run 042  7 types  5 learned limits  2 stale` (no learned
 * or stale part when none is), then `DISK FULL since <ts> (ENOSPC): not recording` while the daemon's disk is full.
 */
export function statusLine(status: StatusAnswer, address: string, now: number): string {
  const parts = [`telemetry daemon at ${address}`, `pid ${status.pid}`, `version ${status.version}`];
  const started = Date.parse(status.started_at);
  if (!Number.isNaN(started)) parts.push(`up ${formatUptime(now - started)}`);
  const suspended = status.suspended_run ? ` (run ${status.suspended_run.run_id} suspended: ${status.suspended_run.reason})` : '';
  parts.push(status.run_id === null ? `site${suspended}` : `run ${status.run_id}`);
  parts.push(`${status.types} type${status.types === 1 ? '' : 's'}`);
  const learned = Object.keys(status.learned ?? {}).length;
  if (learned > 0) parts.push(`${learned} learned limit${learned === 1 ? '' : 's'}`);
  if (status.stale > 0) parts.push(`${status.stale} stale`);
  if (status.disk_full) parts.push(`DISK FULL since ${status.disk_full.since} (${status.disk_full.code}): not recording`);
  return parts.join('  ');
}

/**
 * `rollups ok`, or `rollups failed since <ts>: <reason>` (rebuilding, unwritten likewise), then
 * `  last rebuild <ts> (<reason>)` when one ended since the daemon started; nothing with rollups off.
 */
export function rollupLine(status: StatusAnswer): string {
  const rollups = status.rollups;
  if (rollups === undefined) return '';
  const state = rollups.state === 'ok' ? 'rollups ok' : `rollups ${rollups.state} since ${rollups.since}: ${rollups.reason}`;
  const last = rollups.last_rebuild ? `  last rebuild ${rollups.last_rebuild.at} (${rollups.last_rebuild.reason})` : '';
  return `${state}${last}\n`;
}
