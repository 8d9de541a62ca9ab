import { ConfigError } from '../lib/errors.js';
import { parseSecondsOption } from '../lib/max-age.js';
import { connect } from './connect.js';
import { show, type CliIo } from './io.js';
import { noExtraArguments, switchOption, textOption, UsageError, type ParsedOptions } from './options.js';

// `telemetry post TYPE --data JSON [--max-age S]`: record one event, print its envelope.

/** Post one event and print the envelope the daemon answers (one JSON line). */
export async function runPost(type: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  if (typeof type !== 'string' && typeof type !== 'number') throw new UsageError('missing TYPE (the event type: telemetry post weather --data 1)');
  const dataText = textOption(opts, 'data');
  if (dataText === undefined) throw new UsageError('--data is required (a JSON value: --data \'{"temp_c":-3.5}\', --data null)');
  // checked here, sent as written: the daemon keeps `1.0` and 20-digit numbers as spelled
  jsonOption('--data', dataText);
  const metaText = textOption(opts, 'meta');
  if (metaText !== undefined) {
    const value = jsonOption('--meta', metaText);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError('--meta', 'a JSON object', metaText);
  }
  const maxAge = textOption(opts, 'max-age');
  const maxAgeS = maxAge === undefined ? undefined : parseSecondsOption(maxAge, '--max-age') / 1000;
  const { client } = connect(opts, io);
  const envelope = await client.postEventText(String(type), dataText, { makeCurrent: !switchOption(opts, 'not-current'), metaText, maxAgeS });
  show(io, `${envelope}\n`);
  return 0;
}

function jsonOption(option: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ConfigError(option, 'JSON (strings in double quotes: \'"open"\')', text);
  }
}
