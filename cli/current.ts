import { connect } from './connect.js';
import { followCurrent } from './follow.js';
import type { CliIo } from './io.js';
import { noExtraArguments, requireWith, secondsOption, switchOption, UsageError, type ParsedOptions } from './options.js';

// `telemetry current [TYPE]`: the current view or one reading. On a terminal a table or a
// panel; piped or with --json the API's JSON body. --follow: the live console on a
// terminal, JSON lines when piped.

/** Print the current view (or follow it); a missing reading is the daemon's 404 (exit 1). */
export async function runCurrent(typeArg: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const type = typeArg === undefined ? undefined : String(typeArg);
  if (type === '') throw new UsageError('TYPE must not be empty');
  const json = switchOption(opts, 'json');
  const follow = switchOption(opts, 'follow');
  if (!follow) requireWith(opts, ['interval'], 'follow');
  const intervalMs = secondsOption(opts, 'interval', 1000, { min: 0.1, max: 3600 });
  const staleMs = secondsOption(opts, 'stale', 120_000);
  const { client, address } = connect(opts, io);

  if (follow) {
    try {
      if (!json && io.stdinIsTTY && io.stdoutIsTTY) {
        const { openConsole } = await import('../tui/main.js');
        return await openConsole({ client, address, type, intervalMs, staleMs, noColor: !io.color });
      }
      return await followCurrent({ client, address, type, intervalMs }, io);
    } finally {
      // a poll still waiting on a daemon that does not answer must not hold the exit
      client.close();
    }
  }

  const asText = !json && io.stdoutIsTTY;
  const text = asText ? await import('./current-text.js') : undefined;
  if (type !== undefined) {
    const envelope = await client.currentEvent(type);
    io.out(text ? text.envelopePanel(envelope, { now: io.now(), staleMs, color: io.color }) : `${JSON.stringify(envelope)}\n`);
  } else {
    const answer = await client.current();
    io.out(text ? text.currentTable(answer.current, { now: io.now(), staleMs, columns: io.columns, color: io.color }) : `${JSON.stringify(answer)}\n`);
  }
  return 0;
}
