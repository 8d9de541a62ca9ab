import type { SinkStatus } from '../lib/wire.js';

// `telemetry status`: one line per forwarding sink under the daemon's line.

/** `  sink db (postgres) ok  lag 0 events  last success 2026-03-17T20:00:01.000Z` and, when there are, retries, dead letters, ephemeral events dropped, what was skipped and a clash (another daemon as this unit). */
export function sinkLine(s: SinkStatus): string {
  const parts = [`  sink ${s.name} (${s.kind}) ${s.state}`, `lag ${s.lag_events} event${s.lag_events === 1 ? '' : 's'}${s.lag_events > 0 ? ` / ${s.lag_seconds}s` : ''}`,
    `last success ${s.last_success ?? 'never'}`];
  if (s.retries > 0) parts.push(`${s.retries} retr${s.retries === 1 ? 'y' : 'ies'}`);
  if (s.dead_letters > 0) parts.push(`${s.dead_letters} dead letter${s.dead_letters === 1 ? '' : 's'}`);
  if (s.ephemeral_dropped > 0) parts.push(`${s.ephemeral_dropped} ephemeral dropped`);
  if (s.skipped.length > 0) parts.push(`skipped: ${s.skipped.at(-1)}${s.skipped.length > 1 ? ` (and ${s.skipped.length - 1} more)` : ''}`);
  if (s.clash !== undefined) parts.push(`clash: ${s.clash}`);
  if ((s.state === 'retrying' || s.state === 'failing') && s.last_error) parts.push(`last error: ${s.last_error}`);
  return parts.join('  ');
}
