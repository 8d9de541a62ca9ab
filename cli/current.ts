import type { ThemeName } from '../table/palette.js';
import { ConfigError } from '../lib/errors.js';
import type { Envelope } from '../lib/wire.js';
import { parseSecondsOption } from '../lib/max-age.js';
import { connect } from './connect.js';
import { limitText } from '../lib/max-age.js';
import { answerJudge } from './current-judge.js';
import { NotFresh } from './failure.js';
import { followCurrent } from './follow.js';
import { say, show, type CliIo } from './io.js';
import { noExtraArguments, requireWith, secondsOption, switchOption, textOption, UsageError, type ParsedOptions } from './options.js';

// `telemetry current [TYPE]`: the current view or one reading. On a terminal a table or a
// panel; piped or with --json the API's JSON body. For TYPE, exit 4 when the reading is
// stale or missing (by --max-age, else the daemon's limit for it). --follow: the live
// console on a terminal, JSON lines when piped (or on a terminal that cannot draw one).

/** Print the current view (or follow it); a missing reading is the daemon's 404 (exit 1), or exit 4 under a limit. */
export async function runCurrent(typeArg: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const type = typeArg === undefined ? undefined : String(typeArg);
  if (type === '') throw new UsageError('TYPE must not be empty');
  const json = switchOption(opts, 'json');
  const follow = switchOption(opts, 'follow');
  if (!follow) requireWith(opts, ['interval', 'theme', 'bell'], 'follow');
  const bell = switchOption(opts, 'bell');
  const intervalMs = secondsOption(opts, 'interval', 1000, { min: 0.1, max: 3600 });
  const limitMs = maxAgeOption(opts);
  const theme = themeOption(opts);
  const { client, address } = connect(opts, io);

  if (follow) {
    try {
      if (!json && io.stdinIsTTY && io.stdoutIsTTY) {
        if (io.env.TERM !== 'dumb') {
          const { openConsole } = await import('../tui/main.js');
          return await openConsole({ client, address, type, intervalMs, limitMs, theme, noColor: !io.color, bell });
        }
        say(io, 'TERM=dumb cannot draw the console; printing one JSON line per new reading instead');
      }
      return await followCurrent({ client, address, type, intervalMs }, io);
    } finally {
      // a poll still waiting on a daemon that does not answer must not hold the exit
      client.close();
    }
  }

  const asText = !json && io.stdoutIsTTY;
  const text = asText ? await import('./current-text.js') : undefined;
  // TERM=dumb takes no escape sequence at all (not even bold): the plain palette
  const palette = asText ? (await import('../table/palette.js')).paletteFor('day', io.color, io.env.TERM !== 'dumb') : undefined;
  // JSON output is the daemon's text as sent: decoding and encoding again would respell numbers and escapes
  if (type === undefined) {
    const { answer, text: body, texts } = await client.currentWithText();
    const textOf = (e: Envelope) => texts.get(e.type) ?? JSON.stringify(e);
    if (text && palette) io.out(text.currentTable(answer, { now: io.now(), limitMs, columns: io.columns, palette, textOf }));
    else show(io, `${body}\n`);
    return 0;
  }
  const { answer, texts } = await client.currentWithText({ types: [type] });
  const judge = answerJudge(answer, { now: io.now(), limitMs });
  let envelope = answer.current[type];
  let envelopeText = texts.get(type);
  const { ageMs, limitMs: limit, limitFrom } = judge(type, envelope);
  if (!envelope || envelopeText === undefined) {
    if (limit !== undefined) throw new NotFresh(`${JSON.stringify(type)} has no reading (max age ${limitText(limit, limitFrom)})`);
    // no limit applies: the daemon's own answer, 404 NO_READING (exit 1)
    envelopeText = await client.currentEventText(type);
    envelope = JSON.parse(envelopeText) as Envelope;
  }
  if (text && palette) io.out(text.envelopePanel(envelope, judge, { palette }, envelopeText));
  else show(io, `${envelopeText}\n`);
  if (limit !== undefined && (ageMs === undefined || ageMs > limit)) {
    const age = ageMs === undefined ? 'of unknown age' : `${seconds(ageMs)} old`;
    throw new NotFresh(`${JSON.stringify(type)} is stale: ${age}, max age ${limitText(limit, limitFrom)} (seq ${envelope.seq}, ts ${envelope.ts})`);
  }
  return 0;
}

/** `--max-age` (or its old name `--stale`) in ms, undefined when not given. */
function maxAgeOption(opts: ParsedOptions): number | undefined {
  const given = textOption(opts, 'max-age');
  const old = textOption(opts, 'stale');
  if (given !== undefined && old !== undefined) throw new UsageError('--stale is the old name of --max-age: give one of them');
  if (given !== undefined) return parseSecondsOption(given, '--max-age');
  return old === undefined ? undefined : parseSecondsOption(old, '--stale');
}

// the console's themes (table/palette.ts), named here so a piped command loads no table code
const THEMES: readonly ThemeName[] = ['day', 'night'];

function themeOption(opts: ParsedOptions): ThemeName {
  const theme = textOption(opts, 'theme') ?? 'day';
  if (!(THEMES as readonly string[]).includes(theme)) throw new ConfigError('--theme', `one of ${THEMES.join(', ')}`, theme);
  return theme as ThemeName;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
