import type { StatusAnswer } from '../lib/wire.js';
import { connect } from './connect.js';
import type { CliIo } from './io.js';
import { noExtraArguments, switchOption, type ParsedOptions } from './options.js';

// `telemetry status`: one line about the daemon (GET /status), or its JSON with --json.

/** Print the daemon's status line; exit 3 (through the error path) when none answers. */
export async function runStatus(opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const json = switchOption(opts, 'json');
  const { client, address } = connect(opts, io);
  const status = await client.status();
  io.out(json ? `${JSON.stringify(status)}\n` : `${statusLine(status, address, io.now())}\n`);
  return 0;
}

/** `telemetry daemon at localhost:6562  pid 1234  version 0.1.0  up 3m12s  run 042  7 types`. */
export function statusLine(status: StatusAnswer, address: string, now: number): string {
  const parts = [`telemetry daemon at ${address}`, `pid ${status.pid}`, `version ${status.version}`];
  const started = Date.parse(status.started_at);
  if (!Number.isNaN(started)) parts.push(`up ${formatUptime(now - started)}`);
  parts.push(status.run_id === null ? 'site' : `run ${status.run_id}`);
  parts.push(`${status.types} type${status.types === 1 ? '' : 's'}`);
  return parts.join('  ');
}

/** An uptime: "42s", "3m12s", "5h07m", "2d03h" (negative counts as 0). */
export function formatUptime(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${pad(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${pad(Math.floor(s / 60) % 60)}m`;
  return `${Math.floor(s / 86400)}d${pad(Math.floor(s / 3600) % 24)}h`;
}
