import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfigFile } from '../lib/config-file.js';
import { ConfigError } from '../lib/errors.js';
import type { ConditionValue } from '../daemon/conditions/read.js';
import { resolveBoltwood, type BoltwoodSpec } from '../daemon/outputs/boltwood-config.js';
import { boltwoodLine } from '../daemon/outputs/boltwood-line.js';
import { parseBoltwood } from './helpers/boltwood.js';

// [boltwood] checked at start-up (every mistake a ConfigError naming the key), and the line's
// fields as rows: units letters and conversions, clamping to the columns, the condition levels,
// the flags from the verdict and from each contributing input.

const resolve = (toml: string) => resolveBoltwood(parseConfigFile(toml, 'f.toml').boltwood, 'f.toml');
const KEYS = 'path, every_s, temperature_unit, wind_unit, cloudy, very_cloudy, windy, very_windy, light, very_light';

const refused: Array<[name: string, toml: string, message: string]> = [
  ['not a table', 'boltwood = 1', 'f.toml: boltwood must be a table ([boltwood]); got 1'],
  ['unknown key', '[boltwood]\npath = "/b"\nfile = "/b"', `f.toml: boltwood: file must be a known key (${KEYS}; see docs/integrations.md); got "file"`],
  ['no path', '[boltwood]\nevery_s = 5', 'f.toml: boltwood: path must be an absolute path of a file; got "(missing)"'],
  ['relative path', '[boltwood]\npath = "clarity.txt"', 'f.toml: boltwood: path must be an absolute path of a file; got "clarity.txt"'],
  ['a directory path', '[boltwood]\npath = "/var/lib/"', 'f.toml: boltwood: path must be an absolute path of a file; got "/var/lib/"'],
  ['every_s too small', '[boltwood]\npath = "/b"\nevery_s = 0.1', 'f.toml: boltwood: every_s must be a number of seconds from 0.5 to 3600; got 0.1'],
  ['every_s a string', '[boltwood]\npath = "/b"\nevery_s = "5s"', 'f.toml: boltwood: every_s must be a number of seconds from 0.5 to 3600; got "5s"'],
  ['temperature_unit', '[boltwood]\npath = "/b"\ntemperature_unit = "K"', 'f.toml: boltwood: temperature_unit must be "C" or "F"; got "K"'],
  ['wind_unit', '[boltwood]\npath = "/b"\nwind_unit = "knots"', 'f.toml: boltwood: wind_unit must be "K" (km/h), "M" (mph) or "m" (m/s); got "knots"'],
  ['thresholds out of order', '[boltwood]\npath = "/b"\ncloudy = -10\nvery_cloudy = -20', 'f.toml: boltwood: very_cloudy must be a number at or above cloudy (-10); got -20'],
  ['threshold not a number', '[boltwood]\npath = "/b"\nwindy = "5"', 'f.toml: boltwood: windy must be a number; got "5"'],
];

for (const [name, toml, message] of refused) {
  test(`[boltwood] refused: ${name}`, () => {
    const error = (() => { try { resolve(toml); return undefined; } catch (e) { return e; } })();
    assert.instance(error, ConfigError, name);
    assert.is((error as Error).message, message, name);
  });
}

test('[boltwood] defaults, and none', () => {
  assert.equal(resolve('[boltwood]\npath = "/var/lib/meridian/clarity.txt"'), {
    path: '/var/lib/meridian/clarity.txt', where: 'f.toml', everyMs: 5000, temperatureUnit: 'C', windUnit: 'K', cloudy: -25, veryCloudy: -15, windy: 5, veryWindy: 10, light: 10, veryLight: 1000,
  });
  assert.is(resolve(''), undefined);
});

const value = (property: ConditionValue['property'], v: number | null, opts: { age?: number | null; stale?: boolean; reason?: string } = {}): ConditionValue =>
  ({ property, type: 'w', unit: 'degC', value: v, text: v === null ? null : String(v), age_s: opts.age === undefined ? 1 : opts.age,
    stale: opts.stale ?? false, ...(opts.reason === undefined ? {} : { reason: opts.reason }) });
const SAFE = { safe: true, since: '2026-11-25T00:00:00.000Z', reasons: [] };
const AT = Date.parse('2026-11-25T01:00:00.000Z');
const spec = (over: Partial<BoltwoodSpec> = {}): BoltwoodSpec => ({ ...resolve('[boltwood]\npath = "/b"')!, ...over });

const rows: Array<[name: string, spec: BoltwoodSpec, values: ConditionValue[], fields: Record<string, string>, alert: boolean]> = [
  ['Fahrenheit and mph', spec({ temperatureUnit: 'F', windUnit: 'M' }),
    [value('temperature', 10), value('skytemperature', -20), value('dewpoint', 0), value('windspeed', 4.4704)],
    { T: 'F', V: 'M', SkyT: '-54.0', AmbT: '50.0', SenT: '50.0', DewPt: '32.0', Wind: '10.0', c: '1', w: '1' }, false],
  ['m/s, cloudy and windy', spec({ windUnit: 'm' }), [value('temperature', 10), value('skytemperature', -14), value('windspeed', 5)],
    { V: 'm', SkyT: '-24.0', Wind: '5.0', c: '2', w: '2' }, false],
  ['very cloudy, very windy, light', spec(), [value('temperature', 10), value('skytemperature', 0), value('windspeed', 12), value('skybrightness', 10)],
    { SkyT: '-10.0', Wind: '43.2', c: '3', w: '3', d: '2' }, false],
  ['very light, rain', spec(), [value('skybrightness', 5000), value('rainrate', 0.2)], { d: '3', R: '2', W: '2', r: '3' }, false],
  ['clamped to the columns', spec(), [value('temperature', 12345), value('humidity', 180), value('windspeed', -5)],
    { AmbT: '999.9', SenT: '999.9', Hum: '100', Wind: '-3.0', w: '0' }, false],
  ['a contributing input missing', spec(), [value('temperature', 10), value('humidity', null, { age: null, stale: true, reason: 'h is missing (no reading)' })],
    { Hum: '0', Since: '99999', C: '1', A: '1' }, true],
  ['a contributing input not a number', spec(), [value('temperature', null, { reason: 'w.data.t is not a number ("x")' })],
    { AmbT: '0.0', Since: '00001', C: '1', A: '1' }, true],
  ['a contributing input stale: its value shown, the flags set, Since its age', spec(), [value('temperature', 10, { age: 312.6, stale: true, reason: 'w is stale' }), value('humidity', 50, { age: 2 })],
    { AmbT: '10.0', Hum: '50', Since: '00313', C: '1', A: '1' }, true],
  ['Since at most 99999', spec(), [value('temperature', 10, { age: 123456 })], { Since: '99999' }, false],
];

for (const [name, s, values, fields, alert] of rows) {
  test(`the line: ${name}`, () => {
    const line = boltwoodLine(s, SAFE, values, AT, 'UTC');
    const parsed = parseBoltwood(line.text);
    assert.ok(parsed, line.text);
    assert.equal(Object.fromEntries(Object.keys(fields).map((k) => [k, parsed![k]])), fields, name);
    assert.is(line.alert, alert, name);
    assert.is(parsed!.A, alert ? '1' : '0');
  });
}

test('the line: an unsafe verdict sets both flags and gives its reasons', () => {
  const line = boltwoodLine(spec(), { ...SAFE, safe: false, reasons: ['rule wind: w.data.v > 10'] }, [value('temperature', 10)], AT, 'UTC');
  assert.equal([parseBoltwood(line.text)!.C, parseBoltwood(line.text)!.A, line.reasons], ['1', '1', ['rule wind: w.data.v > 10']]);
});

test.run();
