import { DateTime } from 'luxon';
import { MeridianError } from '../../lib/errors.js';

// Which span of time a night report covers: a site day (local noon to the next local noon,
// DST-safe), or a run (its first event to its last, or to now while it is active).

const DAY = /^\d{8}$/;

/** The span of site day `day` (YYYYMMDD) in `zone`, epoch ms; a day that is no date is a 422 INVALID_NIGHT. */
export function nightSpan(day: string, zone: string): { fromMs: number; toMs: number } {
  const date = DAY.test(day) ? DateTime.fromFormat(day, 'yyyyLLdd', { zone }) : undefined;
  if (!date?.isValid || date.toFormat('yyyyLLdd') !== day) {
    throw new MeridianError('INVALID_NIGHT', `The night must be a site day as YYYYMMDD (the date its evening falls on), such as 20260317; got ${JSON.stringify(day)}.`);
  }
  // noon exists on every day (DST changes happen at night), so these are the day key's turns
  const from = date.set({ hour: 12 });
  const to = date.plus({ days: 1 }).set({ hour: 12 });
  return { fromMs: from.toMillis(), toMs: to.toMillis() };
}
