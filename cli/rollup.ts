import { connect } from './connect.js';
import { show, type CliIo } from './io.js';
import { noExtraArguments, secondsOption, switchOption, UsageError, type ParsedOptions } from './options.js';

// `telemetry rollup rebuild`: every rollup tier made again from the recorded files
// (POST /rollups/rebuild, docs/rollups.md); waits until the rebuilt tiers are in place.

/** Rebuild the daemon's rollups; exit 0 once done. */
export async function runRollup(action: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  if (action !== 'rebuild') {
    throw new UsageError(action === undefined ? 'ACTION is required: rebuild' : `unknown action ${JSON.stringify(String(action))}; the one action is rebuild`);
  }
  // a rebuild reads every recorded file: it is given --timeout (default 1 hour), not the usual 5 s
  const { client, address } = connect(opts, io, secondsOption(opts, 'timeout', 3_600_000) / 1000);
  try {
    const answer = await client.rebuildRollups();
    if (switchOption(opts, 'json')) show(io, `${JSON.stringify(answer)}\n`);
    else io.out(`rollups rebuilt from the recorded files at ${address}` + (answer.late > 0 ? ` (${answer.late} late reading(s) left out)` : '') + '\n');
    return 0;
  } finally {
    client.close();
  }
}
