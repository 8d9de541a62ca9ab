import fs from 'node:fs';
import path from 'node:path';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { uniqueIdsFile } from '../daemon/alpaca/unique-ids.js';
import { VERSION } from '../lib/version.js';
import { alpacaGet, alpacaPut } from './helpers/alpaca.js';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { answerChecker } from './helpers/openapi.js';
import { FaultyFs } from './helpers/faulty-fs.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The Alpaca contract, written from the ASCOM Alpaca API Reference (v11, January 2026), the
// Alpaca Device and Management API definitions and ISafetyMonitorV3, against the real daemon:
// every management and common member with its exact JSON body, the transaction ids, the
// parameter casing rules (GET names case insensitive, PUT form names as defined), and HTTP 400
// with a plain-text sentence for what is not understood.

const T0 = '2026-11-25T01:00:00.000Z';
const ALPACA = '[alpaca]\nport = 0\ndiscovery_port = 0\nlocation = "Roof, Siding Spring"\n';
const SM = '/api/v1/safetymonitor/0';

function withAlpaca(config: string, fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' }, freshnessIntervalMs: 0, safetyIntervalMs: 0, config }, (d) => fn(d, clock));
}

/** `{"Value":...,ids...}` as the reference orders it, for exact comparison of the body text. */
function ok(value: unknown, client: number, server: number): string {
  const head = value === undefined ? '' : `"Value":${JSON.stringify(value)},`;
  return `{${head}"ClientTransactionID":${client},"ServerTransactionID":${server},"ErrorNumber":0,"ErrorMessage":""}`;
}

function err(number: number, message: string, client: number, server: number): string {
  return `{"ClientTransactionID":${client},"ServerTransactionID":${server},"ErrorNumber":${number},"ErrorMessage":${JSON.stringify(message)}}`;
}

async function json(answer: Promise<{ status: number; headers: Record<string, unknown>; text: string }>, body: string, name = body): Promise<void> {
  const a = await answer;
  assert.is(a.status, 200, `${name}: ${a.text}`);
  assert.is(a.headers['content-type'], 'application/json; charset=utf-8', name);
  assert.is(a.text, body, name);
}

test('management API: apiversions, description, configureddevices; ServerTransactionID counts every request from 1', () => withAlpaca(ALPACA, async (d) => {
  const ids = JSON.parse(fs.readFileSync(uniqueIdsFile(d.siteDir), 'utf8')) as { version: number; ids: { SafetyMonitor: string } };
  assert.is(ids.version, 1);
  assert.match(ids.ids.SafetyMonitor, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  await json(alpacaGet(d, '/management/apiversions?ClientID=5&ClientTransactionID=11'), ok([1], 11, 1));
  await json(alpacaGet(d, '/management/v1/description?ClientTransactionID=12'), ok({
    ServerName: 'Meridian', Manufacturer: 'Meridian', ManufacturerVersion: VERSION, Location: 'Roof, Siding Spring',
  }, 12, 2));
  await json(alpacaGet(d, '/management/v1/configureddevices'), ok([
    { DeviceName: 'Meridian safety', DeviceType: 'SafetyMonitor', DeviceNumber: 0, UniqueID: ids.ids.SafetyMonitor },
  ], 0, 3));
  const setup = await alpacaGet(d, '/setup');
  assert.is(setup.status, 200);
  assert.is(setup.headers['content-type'], 'text/html; charset=utf-8');
  assert.ok(setup.text.includes(`<li>SafetyMonitor 0: Meridian safety (${ids.ids.SafetyMonitor})</li>`), setup.text);
  assert.is((await alpacaGet(d, '/setup/v1/safetymonitor/0/setup')).status, 200);
  const other = await alpacaGet(d, '/setup/v1/telescope/0/setup');
  assert.is(other.status, 403, 'the Management API: an invalid /setup URL is 403');
  assert.is(other.text, 'there is no device of type "telescope" here (served: safetymonitor; lower case)');
  await json(alpacaGet(d, '/management/apiversions'), ok([1], 0, 7), 'the setup pages counted too');
}));

test('the UniqueIDs are kept across restarts of the same site directory', async () => {
  const first = await startTestDaemon({ clock: new ManualClock(T0), config: ALPACA });
  const ids = async (d: TestDaemon) => (await alpacaGet(d, '/management/v1/configureddevices')).json.Value.map((v: { UniqueID: string }) => v.UniqueID);
  try {
    const before = await ids(first);
    await first.close();
    await withTestDaemon({ clock: new ManualClock(T0), siteDir: first.siteDir, config: ALPACA }, async (again) => {
      assert.equal(await ids(again), before);
    });
  } finally {
    await first.close();
  }
});

test('a damaged UniqueIDs file is set aside with a warning and new ids are made; an unreadable or unsaveable one stops the start', async () => {
  const siteDir = tempDir();
  try {
    fs.mkdirSync(path.dirname(uniqueIdsFile(siteDir)), { recursive: true });
    fs.writeFileSync(uniqueIdsFile(siteDir), '{"version":1,"ids":{"SafetyMonitor":"not-a-uuid"}}');
    const clock = new ManualClock(T0);
    const d = await startTestDaemon({ clock, siteDir, config: ALPACA });
    try {
      const aside = `${uniqueIdsFile(siteDir)}.damaged-${Date.parse(T0)}`;
      assert.ok(d.logs.some((l) => l.endsWith(`WARN ${uniqueIdsFile(siteDir)} is damaged (set aside as ${aside}): the Alpaca devices get new UniqueIDs, clients must choose them again`)), d.logs.join('\n'));
      assert.is(fs.readFileSync(aside, 'utf8'), '{"version":1,"ids":{"SafetyMonitor":"not-a-uuid"}}');
      const id = (await alpacaGet(d, '/management/v1/configureddevices')).json.Value[0].UniqueID as string;
      assert.equal(JSON.parse(fs.readFileSync(uniqueIdsFile(siteDir), 'utf8')), { version: 1, ids: { SafetyMonitor: id } });
    } finally {
      await d.close();
    }
    fs.rmSync(uniqueIdsFile(siteDir));
    fs.mkdirSync(uniqueIdsFile(siteDir));
    const error = await startTestDaemon({ siteDir, config: ALPACA }).then(() => undefined, (e: Error) => e);
    assert.is(error?.name, 'StartupError');
    assert.is(error!.message, `the Alpaca UniqueIDs cannot be read from ${uniqueIdsFile(siteDir)} (EISDIR)`);
    fs.rmdirSync(uniqueIdsFile(siteDir));
    const full = new FaultyFs();
    full.fault = (call, file) => (call === 'write' && file.startsWith('alpaca-ids.json') ? 'ENOSPC' : undefined);
    const unsaved = await startTestDaemon({ siteDir, config: ALPACA, fs: full.fs }).then(() => undefined, (e: Error) => e);
    assert.is(unsaved?.message, `the Alpaca UniqueIDs cannot be saved to ${uniqueIdsFile(siteDir)} (ENOSPC); they must outlive a restart`);
    assert.not.ok(fs.existsSync(uniqueIdsFile(siteDir)), 'no partial ids file left');
  } finally {
    removeDir(siteDir);
  }
});

test('ClientTransactionID: absent 0, echoed from 0 to 4294967295; a bad one or a bad ClientID is HTTP 400', () => withAlpaca(ALPACA, async (d) => {
  let server = 0;
  const echoed: Array<[string, number]> = [
    ['', 0], ['?ClientTransactionID=0', 0], ['?ClientTransactionID=1', 1], ['?ClientTransactionID=4294967295', 4294967295],
    ['?clienttransactionid=7', 7], ['?CLIENTTRANSACTIONID=8', 8], ['?ClientID=4294967295&ClientTransactionID=9', 9],
    ['?ClientID=1&ClientTransactionID=10&ExtraParameter=ExtraValue', 10], ['?clientid=1&ClientTransactionID=11', 11],
  ];
  for (const [query, client] of echoed) await json(alpacaGet(d, `${SM}/name${query}`), ok('Meridian safety', client, ++server), query);
  const refused: Array<[string, string]> = [
    ['?ClientTransactionID=', 'parameter ClientTransactionID must be an integer 0-4294967295; got ""'],
    ['?ClientTransactionID=%20%20%20', 'parameter ClientTransactionID must be an integer 0-4294967295; got "   "'],
    ['?ClientTransactionID=-67890', 'parameter ClientTransactionID must be an integer 0-4294967295; got "-67890"'],
    ['?ClientTransactionID=qweqwe', 'parameter ClientTransactionID must be an integer 0-4294967295; got "qweqwe"'],
    ['?ClientTransactionID=4294967296', 'parameter ClientTransactionID must be an integer 0-4294967295; got "4294967296"'],
    ['?ClientTransactionID=1.5', 'parameter ClientTransactionID must be an integer 0-4294967295; got "1.5"'],
    ['?ClientTransactionID=0x10', 'parameter ClientTransactionID must be an integer 0-4294967295; got "0x10"'],
    ['?ClientID=NASDAQ', 'parameter ClientID must be an integer 0-4294967295; got "NASDAQ"'],
    ['?ClientID=-12345', 'parameter ClientID must be an integer 0-4294967295; got "-12345"'],
    ['?ClientTransactionID=1&clienttransactionid=2', 'parameter clienttransactionid is given more than once'],
  ];
  for (const [query, text] of refused) {
    const a = await alpacaGet(d, `${SM}/name${query}`);
    assert.is(a.status, 400, query);
    assert.is(a.headers['content-type'], 'text/plain; charset=utf-8', query);
    assert.is(a.text, text, query);
    server++;
  }
  // PUT: the form names as the definition spells them; a differently cased one is not that parameter
  await json(alpacaPut(d, `${SM}/connect`, 'ClientID=3&ClientTransactionID=4294967295'), ok(undefined, 4294967295, ++server));
  await json(alpacaPut(d, `${SM}/connect`, 'ClientID=3&clienttransactionid=44'), ok(undefined, 0, ++server), 'a PUT ignores a mis-cased name');
  const bad = await alpacaPut(d, `${SM}/connect`, 'ClientTransactionID=-1');
  assert.is(bad.status, 400);
  assert.is(bad.text, 'parameter ClientTransactionID must be an integer 0-4294967295; got "-1"');
  await json(alpacaGet(d, `${SM}/connected?ClientTransactionID=5`), ok(true, 5, server + 2), 'the refused request took a ServerTransactionID too');
}));

test('concurrent requests: each ServerTransactionID once, each ClientTransactionID echoed to its own request', () => withAlpaca(ALPACA, async (d) => {
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => alpacaGet(d, `${SM}/name?ClientTransactionID=${1000 + i}`)));
  assert.equal(answers.map((a) => a.json.ClientTransactionID), Array.from({ length: 50 }, (_, i) => 1000 + i));
  assert.equal(answers.map((a) => a.json.ServerTransactionID as number).sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i + 1));
}));

test('common members of SafetyMonitor 0: exact values; connect, disconnect and Connected', () => withAlpaca(ALPACA, async (d) => {
  let server = 0;
  const minor = VERSION.split('.').slice(0, 2).join('.');
  const reads: Array<[string, unknown]> = [
    ['connected', false], ['connecting', false], ['description', 'The safety verdict of a Meridian telemetry daemon'],
    ['driverinfo', `Meridian ${VERSION}: a Meridian telemetry daemon's safety verdict and observing conditions over ASCOM Alpaca`],
    ['driverversion', minor], ['interfaceversion', 3], ['name', 'Meridian safety'], ['supportedactions', []],
  ];
  for (const [member, value] of reads) await json(alpacaGet(d, `${SM}/${member}?ClientTransactionID=1`), ok(value, 1, ++server), member);
  const notConnected = 'Meridian safety is not connected: connect it first';
  await json(alpacaGet(d, `${SM}/issafe?ClientTransactionID=2`), err(0x407, notConnected, 2, ++server), 'issafe before connecting');
  await json(alpacaGet(d, `${SM}/devicestate?ClientTransactionID=2`), err(0x407, notConnected, 2, ++server), 'devicestate before connecting');
  await json(alpacaPut(d, `${SM}/connected`, 'Connected=True&ClientTransactionID=3'), ok(undefined, 3, ++server));
  await json(alpacaGet(d, `${SM}/connected`), ok(true, 0, ++server));
  await json(alpacaGet(d, `${SM}/issafe`), ok(false, 0, ++server), 'no [safety]: unsafe');
  await json(alpacaGet(d, `${SM}/devicestate`), ok([{ Name: 'IsSafe', Value: false }, { Name: 'TimeStamp', Value: T0 }], 0, ++server));
  await json(alpacaPut(d, `${SM}/connected`, 'Connected=false'), ok(undefined, 0, ++server));
  await json(alpacaGet(d, `${SM}/connected`), ok(false, 0, ++server));
  await json(alpacaPut(d, `${SM}/connect`, ''), ok(undefined, 0, ++server));
  await json(alpacaGet(d, `${SM}/connected`), ok(true, 0, ++server));
  await json(alpacaPut(d, `${SM}/disconnect`, ''), ok(undefined, 0, ++server));
  await json(alpacaGet(d, `${SM}/issafe`), err(0x407, notConnected, 0, ++server));
}));

test('Action and the Command members: NotImplemented (0x400) once their parameters are given', () => withAlpaca(ALPACA, async (d) => {
  let server = 0;
  const rows: Array<[string, string, string]> = [
    ['action', 'Action=Open&Parameters=', 'Action is not implemented by Meridian safety'],
    ['commandblind', 'Command=X&Raw=false', 'CommandBlind is not implemented by Meridian safety'],
    ['commandbool', 'Command=X&Raw=True', 'CommandBool is not implemented by Meridian safety'],
    ['commandstring', 'Command=X&Raw=true', 'CommandString is not implemented by Meridian safety'],
  ];
  for (const [member, form, message] of rows) await json(alpacaPut(d, `${SM}/${member}`, `${form}&ClientTransactionID=9`), err(0x400, message, 9, ++server), member);
  const missing: Array<[string, string, string]> = [
    ['action', 'Action=Open', 'parameter Parameters is required'],
    ['commandblind', 'Command=X', 'parameter Raw is required'],
    ['commandbool', 'command=X&Raw=true', 'parameter Command is required'],
    ['commandstring', 'Command=X&Raw=maybe', 'parameter Raw must be true or false; got "maybe"'],
  ];
  for (const [member, form, text] of missing) {
    const a = await alpacaPut(d, `${SM}/${member}`, form);
    assert.is(a.status, 400, member);
    assert.is(a.text, text, member);
  }
}));

test('malformed requests: HTTP 400 with a sentence, nothing changed', () => withAlpaca(ALPACA, async (d) => {
  const rows: Array<[string, string, string, string | undefined, string]> = [
    ['GET', '/apii/v1/safetymonitor/0/issafe', '', undefined, '/apii/v1/safetymonitor/0/issafe is not an Alpaca path (/api/v1/{device_type}/{device_number}/{member}, /management/..., /setup)'],
    ['GET', '/api/v2/safetymonitor/0/issafe', '', undefined, '/api/v2/safetymonitor/0/issafe is not an Alpaca path (/api/v1/{device_type}/{device_number}/{member}, /management/..., /setup)'],
    ['GET', '/api/v1/safetymonitor/0', '', undefined, '/api/v1/safetymonitor/0 is not an Alpaca path (/api/v1/{device_type}/{device_number}/{member}, /management/..., /setup)'],
    ['GET', '/API/V1/SAFETYMONITOR/0/ISSAFE', '', undefined, '/API/V1/SAFETYMONITOR/0/ISSAFE is not an Alpaca path (/api/v1/{device_type}/{device_number}/{member}, /management/..., /setup)'],
    ['GET', '/api/v1/SafetyMonitor/0/issafe', '', undefined, 'there is no device of type "SafetyMonitor" here (served: safetymonitor; lower case)'],
    ['GET', '/api/v1/telescope/0/canslew', '', undefined, 'there is no device of type "telescope" here (served: safetymonitor; lower case)'],
    ['GET', '/api/v1/safetymonitor/1/issafe', '', undefined, 'safetymonitor device 1 does not exist (served: 0)'],
    ['GET', '/api/v1/safetymonitor/99999/issafe', '', undefined, 'safetymonitor device 99999 does not exist (served: 0)'],
    ['GET', '/api/v1/safetymonitor/-1/issafe', '', undefined, 'the device number must be an integer 0-4294967295; got "-1"'],
    ['GET', '/api/v1/safetymonitor/A/issafe', '', undefined, 'the device number must be an integer 0-4294967295; got "A"'],
    ['GET', '/api/v1/safetymonitor/00/issafe', '', undefined, 'the device number must be an integer 0-4294967295; got "00"'],
    ['GET', '/api/v1/safetymonitor/4294967296/issafe', '', undefined, 'the device number must be an integer 0-4294967295; got "4294967296"'],
    ['GET', '/api/v1/safetymonitor/0/IsSafe', '', undefined, 'IsSafe is not a member of SafetyMonitor (member names are lower case)'],
    ['GET', '/api/v1/safetymonitor/0/descrip', '', undefined, 'descrip is not a member of SafetyMonitor (member names are lower case)'],
    ['GET', '/api/v1/safetymonitor/0/constructor', '', undefined, 'constructor is not a member of SafetyMonitor (member names are lower case)'],
    ['PUT', '/api/v1/safetymonitor/0/issafe', 'application/x-www-form-urlencoded', '', 'SafetyMonitor issafe takes GET, not PUT'],
    ['GET', '/api/v1/safetymonitor/0/connect', '', undefined, 'SafetyMonitor connect takes PUT, not GET'],
    ['POST', '/api/v1/safetymonitor/0/connected', 'application/x-www-form-urlencoded', 'Connected=true', 'method POST is not used by Alpaca (GET reads, PUT changes)'],
    ['DELETE', '/api/v1/safetymonitor/0/connected', '', undefined, 'method DELETE is not used by Alpaca (GET reads, PUT changes)'],
    ['PUT', '/management/apiversions', 'application/x-www-form-urlencoded', '', '/management/apiversions takes GET only'],
    ['PUT', SM + '/connected', 'application/json', '{"Connected":true}', 'a PUT body must be application/x-www-form-urlencoded; got "application/json"'],
    ['PUT', SM + '/connected', 'application/x-www-form-urlencoded', 'Connected=', 'parameter Connected must be true or false; got ""'],
    ['PUT', SM + '/connected', 'application/x-www-form-urlencoded', 'Connected=123456', 'parameter Connected must be true or false; got "123456"'],
    ['PUT', SM + '/connected', 'application/x-www-form-urlencoded', 'Connected=asdqwe', 'parameter Connected must be true or false; got "asdqwe"'],
    ['PUT', SM + '/connected', 'application/x-www-form-urlencoded', 'connected=true', 'parameter Connected is required'],
    ['PUT', SM + '/connected', 'application/x-www-form-urlencoded', 'Connected=true&Connected=false', 'parameter Connected is given more than once'],
    ['PUT', SM + '/connected', 'application/x-www-form-urlencoded', `Connected=true&x=${'y'.repeat(70000)}`, 'the body is larger than 65536 bytes'],
    // (a type ending "+gzip" is sent with Content-Encoding: gzip: a body declared compressed is not read as plain)
    ['PUT', SM + '/connected', 'application/x-www-form-urlencoded+gzip', 'Connected=true', 'a PUT body must be sent uncompressed; got Content-Encoding "gzip"'],
  ];
  for (const [method, path, type, body, text] of rows) {
    const coded = type.endsWith('+gzip');
    const headers: Record<string, string> = coded ? { 'content-type': type.slice(0, -5), 'content-encoding': 'gzip' } : type ? { 'content-type': type } : {};
    const a = await request(`http://127.0.0.1:${d.daemon.alpaca!.port}`, path, { method, body, headers });
    assert.is(a.status, 400, `${method} ${path}`);
    assert.is(a.headers['content-type'], 'text/plain; charset=utf-8', path);
    assert.is(a.text, text, `${method} ${path}`);
  }
  await json(alpacaGet(d, `${SM}/connected`), ok(false, 0, rows.length + 1), 'no refused PUT connected the device');
}));

test('GET /status shows the Alpaca address and ports; without [alpaca] there is neither server nor key', async () => {
  await withAlpaca(ALPACA, async (d) => {
    const answer = await request(d.url, '/status');
    answerChecker((await request(d.url, '/openapi.json')).json as OpenAPIObject)('GET', '/status', answer);
    const status = answer.json;
    const alpaca = d.daemon.alpaca!;
    assert.equal(status.alpaca, { address: `127.0.0.1:${alpaca.port}`, port: alpaca.port, discovery_port: alpaca.discoveryPort });
    assert.ok(alpaca.port > 0 && alpaca.discoveryPort! > 0);
    assert.ok(d.logs.some((l) => l.endsWith(`ASCOM Alpaca on http://127.0.0.1:${alpaca.port} (SafetyMonitor 0), discovery on UDP ${alpaca.discoveryPort}`)), d.logs.join('\n'));
  });
  await withAlpaca('[alpaca]\nport = 0\ndiscovery = false\n', async (d) => {
    assert.equal((await request(d.url, '/status')).json.alpaca, { address: `127.0.0.1:${d.daemon.alpaca!.port}`, port: d.daemon.alpaca!.port, discovery_port: null });
  });
  await withTestDaemon({}, async (d) => {
    assert.is(d.daemon.alpaca, undefined);
    assert.not.ok('alpaca' in (await request(d.url, '/status')).json);
    assert.not.ok(fs.existsSync(uniqueIdsFile(d.siteDir)), 'no ids file without [alpaca]');
  });
});

test.run();
