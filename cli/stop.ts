import { connectionReason } from '../client/connection-reason.js';
import { TelemetryConnectionError } from '../client/errors.js';
import { isLoopbackHost } from '../lib/config.js';
import { connect } from './connect.js';
import { waitUntilExited } from './daemon-exit.js';
import { CommandFailure, foreignServer } from './failure.js';
import type { CliIo } from './io.js';
import { formatSeconds, noExtraArguments, secondsOption, type ParsedOptions } from './options.js';

// `telemetry stop`: POST /shutdown, then wait until the daemon has really exited.
// No daemon at the address is a success too (a cron job at dawn can always call it).

/** Stop the daemon; exit 0 when it has exited or none was running, 1 when it refused or outlived --timeout. */
export async function runStop(opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const timeoutMs = secondsOption(opts, 'timeout', 10_000);
  const { client, host, port, address } = connect(opts, io);
  let pid: number;
  try {
    pid = (await client.status()).pid;
  } catch (error) {
    if (error instanceof TelemetryConnectionError && !error.timedOut) {
      // nothing listens: none was running; otherwise say why (something else listening is left alone)
      const listening = error.reason === 'ECONNRESET' || error.reason.startsWith('HPE_');
      const other = error.reason === 'ECONNREFUSED' ? ''
        : ` (${connectionReason(error.reason)}${listening ? '; something else listens there and was left alone' : ''})`;
      io.out(`no telemetry daemon at ${address}${other}\n`);
      return 0;
    }
    const foreign = foreignServer(error);
    if (foreign !== undefined) {
      io.out(`no telemetry daemon at ${address} (${foreign})\n`);
      return 0;
    }
    throw error; // an error answer (401, 403): exit 1; no answer in time: exit 3
  }
  try {
    await client.shutdown();
  } catch (error) {
    // it went away between the two requests: the wait below confirms
    if (!(error instanceof TelemetryConnectionError) || error.timedOut) throw error;
  }
  // the pid is only meaningful when the daemon runs on this machine
  const target = { host, port, pid: isLoopbackHost(host) ? pid : undefined };
  if (!await waitUntilExited(target, timeoutMs, io.now)) {
    throw new CommandFailure(`the telemetry daemon at ${address} (pid ${pid}) did not exit within ${formatSeconds(timeoutMs)}`);
  }
  io.out(`telemetry daemon at ${address} stopped (pid ${pid})\n`);
  return 0;
}
