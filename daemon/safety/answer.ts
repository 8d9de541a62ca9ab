import { scanMembers } from '../../lib/json-text.js';
import type { FreshnessJudge } from '../freshness/judge.js';
import type { VerdictState } from './verdict-event.js';

// The body of GET /safety: `{"safe","since","reasons","inputs","configured"}`. Each input is a
// type the verdict reads: `{"age_s","stale","value"}`, the value being the reading's `data` as
// recorded (its bytes, never re-spelled), null without a reading.

/** The answer's JSON text at `now`. */
export function safetyAnswer(state: VerdictState, inputTypes: readonly string[], judge: FreshnessJudge, now: number, configured: boolean): string {
  const inputs = inputTypes.map((type) => {
    const judged = judge.judge(type, now);
    const reading = judged?.reading;
    const age = judged?.freshness.age_s ?? null;
    const stale = reading ? judged!.freshness.stale : true;
    return `${JSON.stringify(type)}:{"age_s":${JSON.stringify(age)},"stale":${stale},"value":${reading ? dataText(reading.json) : 'null'}}`;
  });
  return `{"safe":${state.safe},"since":${JSON.stringify(state.since)},"reasons":${JSON.stringify(state.reasons)},`
    + `"inputs":{${inputs.join(',')}},"configured":${configured}}`;
}

/** The `data` member of an envelope line, as recorded. */
function dataText(line: string): string {
  const span = scanMembers(line)?.get('data');
  return span === undefined ? 'null' : line.slice(span.start, span.end);
}
