import { DateTime } from 'luxon';
import { normaliseTs } from './time.js';

// The site day turns at local noon, so one observing night lands in one file.

/**
 * The `YYYYMMDD` site day key of a zone-aware date-time: its own local date, or the day
 * before when the local time is before noon. Accepts a luxon DateTime (its zone is used),
 * a JS Date (seen in `zone`, default the system zone) or an ISO string with an offset.
 * Throws TypeError for a naive ISO string or an invalid date.
 */
export function siteDayKey(when: DateTime | Date | string, zone: string = 'system'): string {
  const dt = toZoned(when, zone);
  const day = dt.hour < 12 ? dt.minus({ days: 1 }) : dt;
  return day.toFormat('yyyyLLdd');
}

/** The instant (epoch ms) at which the site day containing `dt` ends: the next local noon. */
export function nextDayBoundary(dt: DateTime): number {
  const noon = dt.set({ hour: 12, minute: 0, second: 0, millisecond: 0 });
  return (dt.hour < 12 ? noon : noon.plus({ days: 1 })).toMillis();
}

const OFFSET = /(Z|[+-]\d{2}(:?\d{2})?)$/i;

function toZoned(when: DateTime | Date | string, zone: string): DateTime {
  let dt: DateTime;
  if (DateTime.isDateTime(when)) {
    dt = when;
  } else if (when instanceof Date) {
    dt = DateTime.fromJSDate(when, { zone });
  } else if (typeof when === 'string') {
    if (!OFFSET.test(when.trim()) || !when.includes('T')) {
      throw new TypeError(`siteDayKey needs a zone-aware date-time; "${when}" has no UTC offset`);
    }
    // the spellings an event's ts takes (lib/time.ts): no week dates, no offset past 23:59
    const spelled = normaliseTs(when.trim());
    if ('problem' in spelled) throw new TypeError(`siteDayKey needs a valid date-time; "${when}" ${spelled.problem}`);
    dt = DateTime.fromISO(when.trim(), { setZone: true });
  } else {
    throw new TypeError(`siteDayKey needs a date-time; got ${typeof when}`);
  }
  if (!dt.isValid) {
    throw new TypeError(`siteDayKey needs a valid date-time; ${dt.invalidExplanation ?? dt.invalidReason ?? 'invalid'}`);
  }
  return dt;
}
