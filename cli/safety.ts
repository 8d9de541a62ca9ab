import { lineText } from '../lib/terminal-text.js';
import type { SafetyAnswer } from '../lib/wire.js';
import { shapedAnswer } from '../client/answer-shape.js';
import { TelemetryAnswerError } from '../client/errors.js';
import { connect } from './connect.js';
import { EXIT } from './failure.js';
import { say, show, type CliIo } from './io.js';
import { noExtraArguments, switchOption, type ParsedOptions } from './options.js';

// `telemetry safety`: the daemon's safety verdict (GET /safety) as one line, or its JSON with
// --json; exit 0 safe, 4 unsafe (the reasons on stderr too), 3 no daemon. For scripts:
// `telemetry safety && open-the-dome`.

/** Print the verdict; exit 4 when unsafe. */
export async function runSafety(opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const json = switchOption(opts, 'json');
  const { client } = connect(opts, io);
  const text = await client.safetyText();
  let answer: SafetyAnswer;
  try {
    answer = shapedAnswer('a safety verdict', text, { method: 'GET', url: `${client.baseUrl}/safety`, text: true });
  } catch (error) {
    // fail-safe: what is not a whole verdict is no verdict, so unsafe (exit 4), never SAFE
    if (!(error instanceof TelemetryAnswerError)) throw error;
    show(io, json ? `${text}\n` : `UNSAFE: ${error.detail}\n`);
    say(io, `unsafe: ${error.detail}`);
    return EXIT.UNSAFE;
  }
  show(io, json ? `${text}\n` : `${safetyLine(answer)}\n`);
  if (answer.safe) return EXIT.OK;
  say(io, `unsafe: ${reasonsText(answer.reasons) || 'no reason given'}`);
  return EXIT.UNSAFE;
}

/** `SAFE since <ts>` or `UNSAFE since <ts>: reason; reason`: one line, piped or not (the reasons quote posted data). */
export function safetyLine(answer: SafetyAnswer): string {
  if (answer.safe) return `SAFE since ${answer.since}`;
  return `UNSAFE since ${answer.since}${answer.reasons.length > 0 ? `: ${reasonsText(answer.reasons)}` : ''}`;
}

// a reason may quote a posted string: its newline, tab and controls (as the alarms' lines) never break the line or reach a terminal
function reasonsText(reasons: readonly string[]): string {
  return reasons.map(lineText).join('; ');
}
