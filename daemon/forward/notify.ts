import { scanMembers } from '../../lib/json-text.js';
import { lineText } from '../../lib/terminal-text.js';
import { recordId, type ForwardRecord } from './record.js';
import { judgeAnswer, peerClient } from './http-answer.js';
import type { HttpSinkSpec, NotifyFormat, Sink } from './sink.js';

// A `[[notify]]` sink: each `meridian.escalation` record of the log is one POST to the webhook,
// with the header `Idempotency-Key: <unit>/<record id>/<ts>` (`pan012/site:41/2026-...Z`) and
// the same key in the body, so a receiver can drop the repeat that at-least-once delivery may
// send after a failure or a crash: the unit keeps units sharing a webhook apart, the
// escalation's ts keeps apart a site directory made again (its seqs start again at 1), and
// every retry of one record carries the same key (the record never changes). Every other record is passed over (the cursor moves past it). The bodies are in
// docs/alarms.md "Escalation". As the HTTP sink: a 2xx delivers, a 4xx other than 408 and 429
// refuses for good (a dead letter), anything else is retried; redirects are not followed.

/** The type of the records a notify sink sends. */
export const ESCALATION_TYPE = 'meridian.escalation';

/** What the body of one escalation is built from. */
export interface Escalation {
  key: string;
  /** The unit that raised it (`--unit-id`). */
  unit: string;
  ts: string;
  /** The escalation event's data: id, severity, state, message, raised_at, value, escalate_after_s. */
  data: Record<string, unknown>;
  /** The data as recorded (its `value` spelled as the reading spelled it: Exact). */
  dataText: string;
  /** The value as recorded. */
  valueText: string;
  /** Since when the alarm is in its state at delivery, when read then. */
  since?: string;
}

/** One request: its body and its content type, and headers of the format. */
export interface NotifyRequest {
  body: string;
  headers: Record<string, string>;
}

/** An alarm's state at delivery and since when it holds (the alarm's `since`). */
export interface AlarmAtDelivery {
  state: string;
  since: string;
}

// what the text formats say of the alarm's state at delivery (`since <ts>` after the handled ones)
const STATE_WORDS: Record<string, string> = {
  unack: 'unacknowledged', rtn_unack: 'back to normal, unacknowledged', acked: 'acknowledged', normal: 'back to normal', shelved: 'shelved',
};
const HANDLED = new Set(['acked', 'normal', 'shelved']);

// `acknowledged since 2026-...Z` when the time is known (an escalation read at delivery), else the state alone
function stateWords(state: string, since: string | undefined): string {
  const words = STATE_WORDS[state] ?? 'unacknowledged';
  return HANDLED.has(state) && since !== undefined ? `${words} since ${since}` : words;
}

// Slack's `text` is mrkdwn: `&`, `<` and `>` written as entities (https://api.slack.com/reference/surfaces/formatting#escaping)
function slackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const PRIORITY: Record<string, string> = { critical: '5', serious: '4', warning: '3' };

/** The request of one escalation in `format`. */
export function notifyRequest(format: NotifyFormat, e: Escalation): NotifyRequest {
  const key = { 'idempotency-key': e.key };
  const d = e.data;
  // one line whatever the configured message holds (a newline, a control): ntfy's body is the line, then the key's
  const line = lineText(`${String(d.severity).toUpperCase()} alarm ${String(d.id)} on ${e.unit}: ${String(d.message)} ` +
    `(value ${e.valueText}, raised ${String(d.raised_at)}, ${stateWords(String(d.state), e.since)})`);
  if (format === 'ntfy') {
    return {
      body: `${line}\nkey ${e.key}`,
      headers: { ...key, 'content-type': 'text/plain; charset=utf-8', title: `Meridian alarm ${String(d.id)} on ${e.unit} (${String(d.severity)})`,
        priority: PRIORITY[String(d.severity)] ?? '3', tags: 'rotating_light' },
    };
  }
  if (format === 'slack') return { body: JSON.stringify({ text: slackText(line), unit: e.unit, idempotency_key: e.key }), headers: { ...key, 'content-type': 'application/json' } };
  return { body: `{"idempotency_key":${JSON.stringify(e.key)},"unit":${JSON.stringify(e.unit)},"ts":${JSON.stringify(e.ts)},"alarm":${e.dataText}}`, headers: { ...key, 'content-type': 'application/json' } };
}

/** The escalation a record of unit `unit` holds, undefined for a record of any other type. */
export function escalationOf(record: ForwardRecord, unit: string): Escalation | undefined {
  if (record.type !== ESCALATION_TYPE) return undefined;
  const envelope = JSON.parse(record.line) as { ts: string; data: unknown };
  const data = envelope.data !== null && typeof envelope.data === 'object' ? envelope.data as Record<string, unknown> : { value: envelope.data };
  const members = scanMembers(record.line);
  const dataSpan = members?.get('data');
  const dataText = dataSpan === undefined ? 'null' : record.line.slice(dataSpan.start, dataSpan.end);
  const valueSpan = scanMembers(dataText)?.get('value');
  const valueText = valueSpan === undefined ? 'null' : dataText.slice(valueSpan.start, valueSpan.end);
  return { key: `${unit}/${recordId(record)}/${envelope.ts}`, unit, ts: envelope.ts, data, dataText, valueText };
}

/** A sink POSTing each escalation of unit `unit` to `spec.url` in `spec.notify`'s format; `alarmState` tells an alarm's state (and since when) at delivery. */
export function notifySink(spec: HttpSinkSpec, unit: string, alarmState?: (id: string) => AlarmAtDelivery | undefined): Sink {
  const peer = peerClient(spec);
  return {
    async send(records, signal) {
      for (const record of records) {
        const escalation = escalationOf(record, unit);
        if (!escalation) continue;
        // the alarm's state at delivery: one acknowledged or cleared while the webhook was down says so
        const now = alarmState?.(String(escalation.data.id));
        const req = notifyRequest(spec.notify ?? 'json', now === undefined ? escalation : withState(escalation, now));
        const res = await peer.post(spec.url, { body: req.body, headers: req.headers, signal });
        judgeAnswer(res, 'webhook', 'the url');
      }
    },
    async close() {
      peer.close();
    },
  };
}

// The escalation as delivered now: its data's `state` the alarm's state at delivery (in the
// recorded data text too, the rest of it as recorded).
function withState(e: Escalation, { state, since }: AlarmAtDelivery): Escalation {
  const span = scanMembers(e.dataText)?.get('state');
  const dataText = span === undefined ? e.dataText : `${e.dataText.slice(0, span.start)}${JSON.stringify(state)}${e.dataText.slice(span.end)}`;
  return { ...e, data: { ...e.data, state }, dataText, since };
}
