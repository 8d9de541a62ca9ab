import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfigFile } from '../lib/config-file.js';
import { ConfigError } from '../lib/errors.js';
import { resolveConditions } from '../daemon/conditions/config.js';
import { CONDITION_PROPERTIES, toCanonical, unitsFor } from '../daemon/conditions/units.js';
import { cli } from './helpers/cli.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The [conditions] section checked at start-up: every mistake a ConfigError naming the key's
// path; the real CLI refuses to start on one (exit 2). The unit table converts exactly.

const resolve = (toml: string) => resolveConditions(parseConfigFile(toml, 'f.toml').conditions, 'f.toml');
const PROPS = Object.keys(CONDITION_PROPERTIES).join(', ');
const FIELD_HELP = 'a field of the reading written as in a rule (data, data.FIELD, data["odd key"], meta.FIELD; see docs/safety.md)';

const rows: Array<[name: string, toml: string, message: string]> = [
  ['not a table', 'conditions = 1', 'f.toml: conditions must be a table ([conditions]); got 1'],
  ['unknown property', '[conditions]\nwind = { type = "w", field = "data.x" }', `f.toml: conditions: wind must be a known property (${PROPS}; see docs/integrations.md); got "wind"`],
  ['mapping not a table', '[conditions]\ntemperature = "w.data.t"', 'f.toml: conditions: temperature must be a table such as { type = "weather", field = "data.temp_c" }; got "w.data.t"'],
  ['unknown key', '[conditions]\ntemperature = { type = "w", field = "data.t", units = "degF" }', 'f.toml: conditions: temperature: units must be a known key (type, field, unit; see docs/integrations.md); got "units"'],
  ['type missing', '[conditions]\ntemperature = { field = "data.t" }', 'f.toml: conditions: temperature: type must be a type name (1-256 characters, no control characters, quotes or backslashes); got "(missing)"'],
  ['type empty', '[conditions]\ntemperature = { type = "", field = "data.t" }', 'f.toml: conditions: temperature: type must be a type name (1-256 characters, no control characters, quotes or backslashes); got ""'],
  ['type with a quote', '[conditions]\ntemperature = { type = "a\\"b", field = "data.t" }', 'f.toml: conditions: temperature: type must be a type name (1-256 characters, no control characters, quotes or backslashes); got "a\\"b"'],
  ['type meridian.*', '[conditions]\ntemperature = { type = "meridian.safety", field = "data.safe" }',
    'f.toml: conditions: temperature: type must be a type that is no meridian.* type (it reads meridian.safety, which the daemon records from the rules\' own results: a rule reading it would feed back into itself); got "meridian.safety"'],
  ['field missing', '[conditions]\ntemperature = { type = "w" }', `f.toml: conditions: temperature: field must be ${FIELD_HELP}; got "(missing)"`],
  ['field without data.', '[conditions]\ntemperature = { type = "w", field = "t" }', `f.toml: conditions: temperature: field must be ${FIELD_HELP}; got "t"`],
  ['field is datum', '[conditions]\ntemperature = { type = "w", field = "datum.t" }', `f.toml: conditions: temperature: field must be ${FIELD_HELP}; got "datum.t"`],
  ['field an expression', '[conditions]\ntemperature = { type = "w", field = "data.t - 1" }', `f.toml: conditions: temperature: field must be ${FIELD_HELP}; got "data.t - 1"`],
  ['field reads another type', '[conditions]\ntemperature = { type = "w", field = "data.t > x.data.y" }', `f.toml: conditions: temperature: field must be ${FIELD_HELP}; got "data.t > x.data.y"`],
  ['field bad syntax', '[conditions]\ntemperature = { type = "w", field = "data.t." }', `f.toml: conditions: temperature: field must be ${FIELD_HELP}; got "data.t."`],
  ['field a call', '[conditions]\ntemperature = { type = "w", field = "data.t(1)" }', `f.toml: conditions: temperature: field must be ${FIELD_HELP}; got "data.t(1)"`],
  ['unknown unit', '[conditions]\nwindspeed = { type = "w", field = "data.v", unit = "furlongs/fortnight" }', 'f.toml: conditions: windspeed: unit must be a unit of windspeed (m/s, km/h, mph, knots); got "furlongs/fortnight"'],
  ['unit of another quantity', '[conditions]\ntemperature = { type = "w", field = "data.t", unit = "km/h" }', 'f.toml: conditions: temperature: unit must be a unit of temperature (degC, degF, K); got "km/h"'],
  ['unit not a string', '[conditions]\npressure = { type = "w", field = "data.p", unit = 1 }', 'f.toml: conditions: pressure: unit must be a unit of pressure (hPa, mbar, Pa, kPa, mmHg, inHg); got 1'],
];

for (const [name, toml, message] of rows) {
  test(`[conditions] refused: ${name}`, () => {
    const error = (() => { try { resolve(toml); return undefined; } catch (e) { return e; } })();
    assert.instance(error, ConfigError, name);
    assert.is((error as Error).message, message, name);
  });
}

test('[conditions] accepted: the mappings in property order, the unit defaulting to the canonical one', () => {
  const config = resolve('[conditions]\nwindspeed = { type = "weather", field = "data.wind_kph", unit = "km/h" }\n'
    + 'temperature = { type = "dome status", field = "data[\\"odd key\\"]" }\nhumidity = { type = "w.x", field = "meta.rh" }');
  assert.equal(config.mappings.map(({ reference: _r, ...m }) => m), [
    { property: 'humidity', type: 'w.x', field: 'meta.rh', unit: '%', canonical: '%' },
    { property: 'temperature', type: 'dome status', field: 'data["odd key"]', unit: 'degC', canonical: 'degC' },
    { property: 'windspeed', type: 'weather', field: 'data.wind_kph', unit: 'km/h', canonical: 'm/s' },
  ]);
  assert.equal(resolve('').mappings, []);
  assert.equal(resolve('[conditions]').mappings, []);
});

test('the unit table: every property has its canonical unit, conversions are exact', () => {
  for (const [property, canonical] of Object.entries(CONDITION_PROPERTIES)) {
    assert.ok(unitsFor(property as keyof typeof CONDITION_PROPERTIES).includes(canonical), property);
  }
  const rows: Array<[unit: string, x: number, expected: number]> = [
    ['degC', 12.5, 12.5], ['degF', 50, 10], ['degF', -40, -40], ['degF', 212, 100], ['K', 273.15, 0], ['K', 300, 300 - 273.15],
    ['km/h', 36, 10], ['mph', 10, 4.4704], ['knots', 36, 18.52], ['m/s', 3, 3],
    ['hPa', 1013.25, 1013.25], ['mbar', 1000, 1000], ['Pa', 101325, 1013.25], ['kPa', 101.325, 1013.25],
    ['mmHg', 760, 760 * 1.33322387415], ['inHg', 1, 25.4 * 1.33322387415], ['in/h', 2, 50.8], ['mm/h', 2, 2],
  ];
  for (const [unit, x, expected] of rows) assert.is(toCanonical(unit, x), expected, `${x} ${unit}`);
});

test('the real daemon refuses a bad [conditions] at start-up: exit 2, one line, nothing created', async () => {
  const dir = tempDir();
  try {
    const config = path.join(dir, 'meridian.toml');
    fs.writeFileSync(config, '[conditions]\nwindspeed = { type = "w", field = "data.v", unit = "furlongs" }\n');
    const site = path.join(dir, 'site');
    const run = await cli(['run', '--port', '1', '--site-dir', site, '--config', config]);
    assert.equal([run.code, run.stdout, run.stderr], [2, '', `telemetry: ${config}: conditions: windspeed: unit must be a unit of windspeed (m/s, km/h, mph, knots); got "furlongs" (see "telemetry run --help")\n`]);
    assert.is(fs.existsSync(site), false);
  } finally {
    removeDir(dir);
  }
});

test.run();
