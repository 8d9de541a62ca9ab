import { DateTime } from 'luxon';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { siteDayKey } from '../lib/day-key.js';

// The site day key: the local date, the day turning at local noon (docs/storage.md).

const berlin = (iso: string) => DateTime.fromISO(iso, { zone: 'Europe/Berlin' });
const newYork = (iso: string) => DateTime.fromISO(iso, { zone: 'America/New_York' });

const KEYS: [string, DateTime | Date | string, string | undefined, string][] = [
  // [name, input, zone for a JS Date, expected key]
  ['contract example: 11:59 local is the day before', '2026-03-17T11:59:00+01:00', undefined, '20260316'],
  ['contract example: 12:00 local is the day itself', '2026-03-17T12:00:00+01:00', undefined, '20260317'],
  ['exactly 11:59:59.999 is still the day before', '2026-03-17T11:59:59.999Z', undefined, '20260316'],
  ['exactly 12:00:00.000 is the new day', '2026-03-17T12:00:00.000Z', undefined, '20260317'],
  ['just after midnight belongs to the evening before', '2026-03-17T00:00:00.000Z', undefined, '20260316'],
  ['late evening belongs to its own date', '2026-03-17T23:59:59.999Z', undefined, '20260317'],
  ['before noon on New Year\'s day is last year', '2026-01-01T11:00:00Z', undefined, '20251231'],
  ['before noon on 1 March is 28 February', '2026-03-01T06:00:00Z', undefined, '20260228'],
  ['the offset of the string is the local time', '2026-03-17T02:00:00+14:00', undefined, '20260316'],
  ['a negative offset late in the evening', '2026-03-17T23:30:00-05:00', undefined, '20260317'],
  ['an offset without colon', '2026-03-17T12:00:00+0100', undefined, '20260317'],
  ['luxon DateTime uses its own zone', DateTime.fromISO('2026-03-17T11:00:00Z').setZone('Asia/Tokyo'), undefined, '20260317'],
  ['luxon DateTime in UTC', DateTime.fromISO('2026-03-17T11:00:00Z', { zone: 'utc' }), undefined, '20260316'],
  ['JS Date seen in UTC', new Date('2026-03-17T11:59:59.999Z'), 'utc', '20260316'],
  ['JS Date seen in Tokyo', new Date('2026-03-17T11:59:59.999Z'), 'Asia/Tokyo', '20260317'],
  ['JS Date seen in New York', new Date('2026-03-17T16:00:00.000Z'), 'America/New_York', '20260317'],
  ['JS Date seen in New York, a minute earlier', new Date('2026-03-17T15:59:00.000Z'), 'America/New_York', '20260316'],
  // Europe/Berlin: clocks go 02:00 -> 03:00 on 2026-03-29 and 03:00 -> 02:00 on 2026-10-25
  ['Berlin spring DST day, 01:30 (before the change)', berlin('2026-03-29T01:30:00'), undefined, '20260328'],
  ['Berlin spring DST day, 11:59:59.999 CEST', berlin('2026-03-29T11:59:59.999'), undefined, '20260328'],
  ['Berlin spring DST day, 12:00 CEST', berlin('2026-03-29T12:00:00.000'), undefined, '20260329'],
  ['Berlin spring DST day, 12:00 CEST as an instant', new Date('2026-03-29T10:00:00.000Z'), 'Europe/Berlin', '20260329'],
  ['Berlin spring DST day, 11:59:59.999 CEST as an instant', new Date('2026-03-29T09:59:59.999Z'), 'Europe/Berlin', '20260328'],
  ['Berlin autumn DST day, 02:30 (repeated hour)', berlin('2026-10-25T02:30:00'), undefined, '20261024'],
  ['Berlin autumn DST day, 11:59:59.999 CET', new Date('2026-10-25T10:59:59.999Z'), 'Europe/Berlin', '20261024'],
  ['Berlin autumn DST day, 12:00 CET', new Date('2026-10-25T11:00:00.000Z'), 'Europe/Berlin', '20261025'],
  ['Berlin autumn DST day, 12:00 CET as a string', '2026-10-25T12:00:00+01:00', undefined, '20261025'],
  // America/New_York: clocks go 02:00 -> 03:00 on 2026-03-08 and 02:00 -> 01:00 on 2026-11-01
  ['New York spring DST day, 11:59:59.999 EDT', newYork('2026-03-08T11:59:59.999'), undefined, '20260307'],
  ['New York spring DST day, 12:00 EDT', newYork('2026-03-08T12:00:00.000'), undefined, '20260308'],
  ['New York spring DST day, 12:00 EDT as an instant', new Date('2026-03-08T16:00:00.000Z'), 'America/New_York', '20260308'],
  ['New York autumn DST day, 01:30 (repeated hour)', newYork('2026-11-01T01:30:00'), undefined, '20261031'],
  ['New York autumn DST day, 11:59:59.999 EST', new Date('2026-11-01T16:59:59.999Z'), 'America/New_York', '20261031'],
  ['New York autumn DST day, 12:00 EST', new Date('2026-11-01T17:00:00.000Z'), 'America/New_York', '20261101'],
];

for (const [name, input, zone, expected] of KEYS) {
  test(`siteDayKey: ${name}`, () => {
    assert.is(zone === undefined ? siteDayKey(input) : siteDayKey(input, zone), expected);
  });
}

const NAIVE: [string, unknown, RegExp][] = [
  ['an ISO string without offset', '2026-03-17T12:00:00', /has no UTC offset/],
  ['an ISO string with milliseconds and no offset', '2026-03-17T12:00:00.000', /has no UTC offset/],
  ['a date without a time', '2026-03-17', /has no UTC offset/],
  ['text that is no date', 'tomorrow', /has no UTC offset/],
  ['an impossible date with an offset', '2026-02-30T12:00:00Z', /valid date-time/],
  ['an impossible offset', '2026-03-17T12:00:00+24:00', /valid date-time; "2026-03-17T12:00:00\+24:00" has an impossible UTC offset/],
  ['an ISO week date', '2026-W12-2T12:00:00Z', /valid date-time; "2026-W12-2T12:00:00Z" must be a calendar date and time/],
  ['an invalid JS Date', new Date(Number.NaN), /valid date-time/],
  ['an invalid luxon DateTime', DateTime.invalid('made up'), /valid date-time/],
  ['a number', 1773748800000, /needs a date-time; got number/],
];

for (const [name, input, message] of NAIVE) {
  test(`siteDayKey throws TypeError for ${name}`, () => {
    assert.throws(() => siteDayKey(input as string), (error: unknown) => error instanceof TypeError && message.test(error.message));
  });
}

test.run();
