import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { uniqueIdsFile } from '../daemon/alpaca/unique-ids.js';
import { magnusDewpoint } from '../daemon/rules/evaluate.js';
import { VERSION } from '../lib/version.js';
import { alpacaGet, alpacaPut } from './helpers/alpaca.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';

// ObservingConditions 0 over the [conditions] mapping, from IObservingConditionsV2: mapped
// properties in ASCOM units (the recorded spelling when unconverted), NotImplemented (0x400)
// for unmapped ones, 0x500 without a usable reading, 0x501 when stale (never a stale value
// shown as fresh), TimeSinceLastUpdate from the ages (empty SensorName: the latest update of
// any; an unknown name InvalidValue 0x401), SensorDescription even when not connected,
// AveragePeriod 0 only, Refresh a no-op, DeviceState with only what is known and fresh.

const T0 = '2026-11-25T01:00:00.000Z';
const CONFIG = `
[alpaca]
port = 0
discovery = false
[conditions]
temperature = { type = "weather", field = "data.temp_f", unit = "degF" }
humidity = { type = "weather", field = "data.rh" }
windspeed = { type = "wind", field = "data.speed", unit = "km/h" }
skytemperature = { type = "cloud", field = "data.sky_c" }
`;
const OC = '/api/v1/observingconditions/0';

function withConditions(fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' }, flags: { maxAge: 'weather=300,wind=60,cloud=600' }, freshnessIntervalMs: 0, safetyIntervalMs: 0, config: CONFIG },
    (d) => fn(d, clock));
}

async function post(d: TestDaemon, type: string, data: string): Promise<void> {
  const answer = await request(d.url, '/event', { method: 'POST', body: `{"type":"${type}","data":${data}}`, headers: { 'content-type': 'application/json' } });
  assert.is(answer.status, 200, answer.text);
}

/** The body of GET `member` (query included) after the ServerTransactionID, as text. */
async function tail(d: TestDaemon, member: string): Promise<string> {
  const a = await alpacaGet(d, `${OC}/${member}`);
  assert.is(a.status, 200, `${member}: ${a.text}`);
  return a.text.replace(/"ClientTransactionID":0,"ServerTransactionID":\d+,/, '');
}

const value = (v: string) => `{"Value":${v},"ErrorNumber":0,"ErrorMessage":""}`;
const error = (n: number, m: string) => `{"ErrorNumber":${n},"ErrorMessage":${JSON.stringify(m)}}`;

test('configured devices, the common members of ObservingConditions and SensorDescription before connecting', () => withConditions(async (d) => {
  const ids = (JSON.parse(fs.readFileSync(uniqueIdsFile(d.siteDir), 'utf8')) as { ids: Record<string, string> }).ids;
  assert.equal((await alpacaGet(d, '/management/v1/configureddevices')).json.Value, [
    { DeviceName: 'Meridian safety', DeviceType: 'SafetyMonitor', DeviceNumber: 0, UniqueID: ids.SafetyMonitor },
    { DeviceName: 'Meridian conditions', DeviceType: 'ObservingConditions', DeviceNumber: 0, UniqueID: ids.ObservingConditions },
  ]);
  assert.is.not(ids.ObservingConditions, ids.SafetyMonitor);
  const rows: Array<[string, string]> = [
    ['interfaceversion', value('2')], ['name', value('"Meridian conditions"')],
    ['description', value('"The observing conditions recorded by a Meridian telemetry daemon"')],
    ['driverversion', value(JSON.stringify(VERSION.split('.').slice(0, 2).join('.')))], ['connected', value('false')],
    ['sensordescription?SensorName=Temperature', value('"weather data.temp_f (recorded in degF, published in degC)"')],
    ['sensordescription?sensorname=humidity', value('"weather data.rh (%)"')],
    ['sensordescription?SensorName=WindSpeed', value('"wind data.speed (recorded in km/h, published in m/s)"')],
    ['sensordescription?SensorName=DewPoint', value('"computed from Temperature and Humidity (Magnus; degC)"')],
    ['sensordescription?SensorName=Pressure', error(0x400, 'Pressure is not mapped in [conditions]')],
    ['sensordescription?SensorName=Seeing', error(0x401, 'SensorName "Seeing" is not an ObservingConditions property (CloudCover, DewPoint, Humidity, Pressure, RainRate, SkyBrightness, SkyQuality, SkyTemperature, StarFWHM, Temperature, WindDirection, WindGust, WindSpeed)')],
    ['sensordescription?SensorName=', error(0x401, 'SensorName "" is not an ObservingConditions property (CloudCover, DewPoint, Humidity, Pressure, RainRate, SkyBrightness, SkyQuality, SkyTemperature, StarFWHM, Temperature, WindDirection, WindGust, WindSpeed)')],
    ['temperature', error(0x407, 'Meridian conditions is not connected: connect it first')],
    ['timesincelastupdate?SensorName=', error(0x407, 'Meridian conditions is not connected: connect it first')],
    ['averageperiod', error(0x407, 'Meridian conditions is not connected: connect it first')],
  ];
  for (const [member, body] of rows) assert.is(await tail(d, member), body, member);
  const missing = await alpacaGet(d, `${OC}/sensordescription`);
  assert.is(missing.status, 400);
  assert.is(missing.text, 'parameter SensorName is required');
}));

test('properties: converted, as spelled, unmapped, missing, not a number, stale; TimeSinceLastUpdate; DeviceState', () => withConditions(async (d, clock) => {
  assert.is((await alpacaPut(d, `${OC}/connect`, '')).status, 200);
  const before: Array<[string, string]> = [
    ['temperature', error(0x500, 'Temperature has no value: weather is missing (no reading)')],
    ['timesincelastupdate?SensorName=Temperature', value('-1')],
    ['timesincelastupdate?SensorName=', value('-1')],
    ['devicestate', value(`[{"Name":"TimeStamp","Value":"${T0}"}]`)],
  ];
  for (const [member, body] of before) assert.is(await tail(d, member), body, member);
  await post(d, 'weather', '{"temp_f":50,"rh":40.50}');
  clock.advance(30_000);
  await post(d, 'wind', '{"speed":18}');
  await post(d, 'cloud', '{"sky_c":"n/a"}');
  clock.advance(2_000);
  const at = new Date(Date.parse(T0) + 32_000).toISOString();
  const rows: Array<[string, string]> = [
    ['temperature', value('10')],
    ['humidity', value('40.50')],
    ['windspeed', value('5')],
    ['skytemperature', error(0x500, 'SkyTemperature has no value: cloud.data.sky_c is not a number ("n/a")')],
    ['pressure', error(0x400, 'Pressure is not mapped in [conditions]')],
    ['cloudcover', error(0x400, 'CloudCover is not mapped in [conditions]')],
    ['timesincelastupdate?SensorName=Temperature', value('32')],
    ['timesincelastupdate?SensorName=windspeed', value('2')],
    ['timesincelastupdate?SensorName=', value('2')],
    ['timesincelastupdate?SensorName=StarFWHM', error(0x400, 'StarFWHM is not mapped in [conditions]')],
    ['timesincelastupdate?SensorName=Seeing', error(0x401, 'SensorName "Seeing" is not an ObservingConditions property (CloudCover, DewPoint, Humidity, Pressure, RainRate, SkyBrightness, SkyQuality, SkyTemperature, StarFWHM, Temperature, WindDirection, WindGust, WindSpeed)')],
    ['devicestate', value(`[{"Name":"DewPoint","Value":${(await alpacaGet(d, `${OC}/dewpoint`)).json.Value}},{"Name":"Humidity","Value":40.50},{"Name":"Temperature","Value":10},{"Name":"WindSpeed","Value":5},{"Name":"TimeStamp","Value":"${at}"}]`)],
  ];
  for (const [member, body] of rows) assert.is(await tail(d, member), body, member);
  assert.is(await tail(d, 'dewpoint'), value(JSON.stringify(magnusDewpoint(10, 40.5))), 'the rule language\'s Magnus dew point of 10 degC, 40.5 %');
  clock.advance(60_000);
  const stale: Array<[string, string]> = [
    ['windspeed', error(0x501, 'WindSpeed is not published: wind is stale (age 62.0 s, limit 60 s)')],
    ['temperature', value('10')],
    ['timesincelastupdate?SensorName=WindSpeed', value('62')],
    ['devicestate', value(`[{"Name":"DewPoint","Value":${(await alpacaGet(d, `${OC}/dewpoint`)).json.Value}},{"Name":"Humidity","Value":40.50},{"Name":"Temperature","Value":10},{"Name":"TimeStamp","Value":"${new Date(Date.parse(T0) + 92_000).toISOString()}"}]`)],
  ];
  for (const [member, body] of stale) assert.is(await tail(d, member), body, member);
}));

test('AveragePeriod 0 only; Refresh accepted; bad values HTTP 400', () => withConditions(async (d) => {
  await alpacaPut(d, `${OC}/connected`, 'Connected=true');
  const put = async (member: string, form: string) => (await alpacaPut(d, `${OC}/${member}`, form)).text.replace(/"ClientTransactionID":0,"ServerTransactionID":\d+,/, '');
  const ok = '{"ErrorNumber":0,"ErrorMessage":""}';
  assert.is(await put('averageperiod', 'AveragePeriod=0'), ok);
  assert.is(await put('averageperiod', 'AveragePeriod=0.0'), ok);
  assert.is(await put('averageperiod', 'AveragePeriod=5.0'), error(0x401, 'AveragePeriod must be 0 (each reading is published as recorded, never averaged); got 5'));
  assert.is(await put('averageperiod', 'AveragePeriod=-2'), error(0x401, 'AveragePeriod must be 0 (each reading is published as recorded, never averaged); got -2'));
  assert.is(await put('refresh', ''), ok);
  assert.is(await tail(d, 'averageperiod'), value('0'));
  const bad: Array<[string, string]> = [
    ['AveragePeriod=', 'parameter AveragePeriod must be a number; got ""'],
    ['AveragePeriod=1,5', 'parameter AveragePeriod must be a number; got "1,5"'],
    ['AveragePeriod=NaN', 'parameter AveragePeriod must be a number; got "NaN"'],
    ['averageperiod=0', 'parameter AveragePeriod is required'],
  ];
  for (const [form, text] of bad) {
    const a = await alpacaPut(d, `${OC}/averageperiod`, form);
    assert.is(a.status, 400, form);
    assert.is(a.text, text, form);
  }
  assert.is((await alpacaGet(d, `${OC}/temperature?ClientTransactionID=x`)).status, 400);
}));

test('without [conditions] mappings there is no ObservingConditions device', () => withTestDaemon({ config: '[alpaca]\nport = 0\ndiscovery = false\n' }, async (d) => {
  const a = await alpacaGet(d, `${OC}/temperature`);
  assert.is(a.status, 400);
  assert.is(a.text, 'there is no device of type "observingconditions" here (served: safetymonitor; lower case)');
  assert.equal(Object.keys((JSON.parse(fs.readFileSync(uniqueIdsFile(d.siteDir), 'utf8')) as { ids: object }).ids), ['SafetyMonitor']);
}));

test.run();
