import type { JsonObject } from '../../lib/wire.js';
import type { Reading } from '../storage/current-view.js';
import type { ValidEvent } from '../storage/store.js';

// The `meridian.safety` event, recorded on every change of the verdict: data
// `{"safe":bool,"reasons":[...],"since":ts}`. In the log, forwarded, in history and current like
// any reading; after a restart the verdict starts from the view's latest one.

/** The verdict's event type (in lib/wire.ts DAEMON_ONLY_TYPES: callers cannot post it). */
export const SAFETY_TYPE = 'meridian.safety';

/** The verdict at one moment. */
export interface VerdictState {
  readonly safe: boolean;
  /** When `safe` last changed (the envelope ts form). */
  readonly since: string;
  readonly reasons: readonly string[];
}

/** The reason of a raised rule (`rule wind: weather.data.wind_kmh > 40`); restart reads the name back from it. */
export function raisedReason(name: string, when: string): string {
  return `rule ${name}: ${when}`;
}

/** The event that records `state`. */
export function verdictEvent(state: VerdictState): ValidEvent {
  const data: JsonObject = { safe: state.safe, reasons: [...state.reasons], since: state.since };
  return { type: SAFETY_TYPE, data: JSON.stringify(data), makeCurrent: true, storePermanently: true, meta: '{}' };
}

/** The verdict a `meridian.safety` reading recorded, undefined when it is not one (a caller posted something else under the name). */
export function recordedVerdict(reading: Reading | undefined): VerdictState | undefined {
  if (!reading) return undefined;
  const data = reading.envelope.data as Partial<Record<keyof VerdictState, unknown>> | null;
  if (data === null || typeof data !== 'object' || typeof data.safe !== 'boolean' || typeof data.since !== 'string'
    || Number.isNaN(Date.parse(data.since)) || !Array.isArray(data.reasons) || !data.reasons.every((r) => typeof r === 'string')) {
    return undefined;
  }
  return { safe: data.safe, since: data.since, reasons: data.reasons as string[] };
}

/** The rules a recorded verdict named as raised (their hysteresis is kept across a restart). */
export function raisedRules(state: VerdictState | undefined, names: readonly string[]): Set<string> {
  const raised = new Set<string>();
  for (const name of names) if (state?.reasons.some((r) => r.startsWith(raisedReason(name, '')))) raised.add(name);
  return raised;
}
