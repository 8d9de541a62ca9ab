import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { numberAt } from '../lib/number-text.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';

// The weather part of the night report on readings spelled every way a caller may spell them:
// spaced JSON (the 0.5.3 client's json.dumps), a key given twice (the last one counts, as
// JSON.parse reads it), nested values and strings holding JSON's own characters, an escaped
// key, a number beyond a double; min and max answered as recorded.

test('numberAt reads every spelling as Number() does', () => {
  const spellings = ['0', '-0', '1.0', '8.35', '0.1', '-31.5', '1013.2', '123456789012345', '1234567890123456789', '1e5', '-2.5E-3',
    '0.000001', '3.14159265358979', '0.30000000000000004', '9007199254740993', '1.7976931348623157e308', '5e-324', '12.500'];
  for (const text of spellings) assert.ok(Object.is(numberAt(`x${text}y`, 1, text.length + 1), Number(text)), text);
});

test('weather fields from readings spelled every way', () => withTestDaemon(
  { clock: new ManualClock('2026-03-18T20:00:00.000Z'), env: { TZ: 'UTC' }, freshnessIntervalMs: 0 }, async (d) => {
    const rows: [data: string, minute: number][] = [
      ['{"t": 1.0, "h" : 40 }', 0],
      ['{"t":9,"t":2.50,"h":41}', 1],
      ['{"t":-3.000,"n":{"t":100,"h":[1,{"x":"}"}]},"h":42}', 2],
      ['{"s":"a,}\\"{[","t":7.0e0,"h":43}', 3],
      ['{"\\u0074":4,"h":44}', 4],
      ['{"t":"12","h":45,"ok":true,"none":null}', 5],
    ];
    const body = rows.map(([data, m]) => `{"type":"weather","data":${data},"ts":"2026-03-17T13:0${m}:00.000Z"}`).join('\n');
    const posted = await request(d.url, '/events', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });
    assert.is(posted.status, 200, posted.text);
    const answer = await request(d.url, '/reports/night/20260317');
    const start = answer.text.indexOf('"fields":');
    const fields = answer.text.slice(start, answer.text.indexOf('},"states"', start));
    const t = [1.0, 2.5, -3, 7, 4];
    const h = [40, 41, 42, 43, 44, 45];
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.is(fields, `"fields":{"h":{"count":6,"min":40,"mean":${mean(h)},"max":45,"series":[["2026-03-17T13:00:00.000Z",${mean(h)}]]},`
      + `"t":{"count":5,"min":-3.000,"mean":${mean(t)},"max":7.0e0,"series":[["2026-03-17T13:00:00.000Z",${mean(t)}]]}}`);
  }));

test.run();
