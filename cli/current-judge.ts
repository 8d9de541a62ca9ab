import { ageAt } from '../lib/max-age.js';
import type { CurrentAnswer } from '../lib/wire.js';
import type { Judge } from '../table/rows.js';

// How `telemetry current` judges a type: the daemon's age and limit from the answer's
// `freshness`, the limit overridden by --max-age. Free of the table code, so `current TYPE`
// piped (a safety check in a cron job) loads none of it.

/** The daemon's judgement of each type (its freshness), with the limit overridden when asked; local ages for a daemon that sends none. */
export function answerJudge(answer: CurrentAnswer, o: { now: number; limitMs: number | undefined }): Judge {
  return (type, envelope) => {
    const f = answer.freshness?.[type];
    const ageMs = f?.age_s != null ? Math.round(f.age_s * 1000) : envelope ? ageAt(envelope.ts, o.now) : undefined;
    const daemonLimit = f?.max_age_s != null ? f.max_age_s * 1000 : undefined;
    if (o.limitMs !== undefined) return { ageMs, limitMs: o.limitMs, limitFrom: '--max-age' };
    return { ageMs, limitMs: daemonLimit, limitFrom: daemonLimit === undefined ? undefined : f?.max_age_from ?? undefined };
  };
}
