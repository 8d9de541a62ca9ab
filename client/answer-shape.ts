import { ALARM_SEVERITIES, ALARM_STATES, type AlarmAnswer, type AlarmsAnswer, type SafetyAnswer } from '../lib/wire.js';
import { normaliseTs } from '../lib/time.js';
import { TelemetryAnswerError } from './errors.js';

// The shape of the daemon's answers the CLI and programs act on (the safety verdict, the
// alarms), checked in one place: an answer that is not whole (a proxy's `{}`, an older or
// foreign server, a damaged body) is refused with one sentence naming what is wrong, never
// read as if it were (`SAFE since undefined`) and never a TypeError further on.

/** What is wrong with a value that should be a safety verdict (GET /safety), or undefined when it is one. */
export function safetyProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `it is ${kindOf(value)}, not an object`;
  if (typeof value.safe !== 'boolean') return `safe is ${kindOf(value.safe)}, not true or false`;
  if (typeof value.since !== 'string') return `since is ${kindOf(value.since)}, not a time`;
  const since = normaliseTs(value.since);
  if ('problem' in since) return `since is ${JSON.stringify(value.since)}, not a time (it ${since.problem})`;
  if (!Array.isArray(value.reasons) || !value.reasons.every((r) => typeof r === 'string')) return 'reasons is not a list of texts';
  if (!isObject(value.inputs)) return `inputs is ${kindOf(value.inputs)}, not an object`;
  if (typeof value.configured !== 'boolean') return `configured is ${kindOf(value.configured)}, not true or false`;
  // a safe verdict is one a configured daemon gives with no reason against it (a daemon without [safety] is never safe)
  if (value.safe && !value.configured) return 'safe is true but configured is false (a daemon without [safety] is never safe)';
  if (value.safe && value.reasons.length > 0) return `safe is true but reasons are given (${JSON.stringify(value.reasons[0])})`;
  return undefined;
}

/** What is wrong with a value that should be GET /alarms' answer, or undefined. */
export function alarmsProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `it is ${kindOf(value)}, not an object`;
  if (!Array.isArray(value.alarms)) return `alarms is ${kindOf(value.alarms)}, not a list`;
  for (const [i, alarm] of value.alarms.entries()) {
    const problem = alarmProblem(alarm);
    if (problem !== undefined) return `alarm ${i + 1}: ${problem}`;
  }
  return undefined;
}

const TEXTS = ['id', 'since', 'message'] as const;
const TEXTS_OR_NULL = ['raised_at', 'acked_by', 'acked_at', 'shelved_until', 'escalated_at', 'unknown'] as const;

/** What is wrong with a value that should be one alarm (GET /alarms/{id}, ack, shelve), or undefined. */
export function alarmProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `it is ${kindOf(value)}, not an object`;
  for (const key of TEXTS) if (typeof value[key] !== 'string') return `${key} is ${kindOf(value[key])}, not a text`;
  for (const key of TEXTS_OR_NULL) if (value[key] !== null && typeof value[key] !== 'string') return `${key} is ${kindOf(value[key])}, not a text or null`;
  if (!(ALARM_SEVERITIES as readonly unknown[]).includes(value.severity)) return `severity is ${kindOf(value.severity)}, not ${ALARM_SEVERITIES.join(', ')}`;
  if (!(ALARM_STATES as readonly unknown[]).includes(value.state)) return `state is ${kindOf(value.state)}, not ${ALARM_STATES.join(', ')}`;
  if (typeof value.active !== 'boolean') return `active is ${kindOf(value.active)}, not true or false`;
  if (!('value' in value)) return 'value is missing';
  return undefined;
}

/** The checks by the answer they hold to, for the client's one request path. */
export const ANSWER_CHECKS = {
  'a safety verdict': safetyProblem, 'a list of alarms': alarmsProblem, 'an alarm': alarmProblem,
} as const;

/** The name of an answer's shape in ANSWER_CHECKS. */
export type AnswerShape = keyof typeof ANSWER_CHECKS;

/** The answers a shape stands for. */
export interface ShapeAnswers {
  'a safety verdict': SafetyAnswer;
  'a list of alarms': AlarmsAnswer;
  'an alarm': AlarmAnswer;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// a value as a sentence names it: `missing`, `a list`, `null`, `the number 1`, `the text "nope"`
function kindOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  const shown = text.length > 40 ? `${text.slice(0, 40)}...` : text;
  return typeof value === 'string' ? `the text ${shown}` : `${typeof value === 'number' ? 'the number' : ''} ${shown}`.trim();
}

/** The answer to `method url` held to `shape`: the decoded value, or its JSON text (parsed here); throws TelemetryAnswerError naming what is wrong. */
export function shapedAnswer<S extends AnswerShape>(shape: S, answer: unknown, where: { method: string; url: string; text?: boolean }): ShapeAnswers[S] {
  let value = answer;
  let problem: string | undefined;
  if (where.text === true) {
    try {
      value = JSON.parse(String(answer));
    } catch {
      problem = 'it is not JSON';
    }
  }
  problem ??= ANSWER_CHECKS[shape](value);
  if (problem === undefined) return value as ShapeAnswers[S];
  const path = new URL(where.url).pathname;
  throw new TelemetryAnswerError({ statusCode: 200, detail: `the answer to ${where.method} ${path} is not ${shape}: ${problem}`, method: where.method, url: where.url });
}
