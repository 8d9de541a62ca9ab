import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sinkLine } from '../cli/sink-lines.js';
import { resolveSinks } from '../daemon/forward/config.js';
import type { SinkStatus } from '../lib/wire.js';
import { cli } from './helpers/cli.js';
import { freePort, spawnDaemon } from './helpers/daemon.js';
import { caughtUp, startPeer } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { withSilentListener } from './helpers/listener.js';
import { removeDir } from './helpers/tmp.js';

// Forwarding settings (--forward, --config TOML, secrets from the environment), the sink
// lines of `telemetry status`, and a shutdown that a peer which never answers cannot hold up.

test('--forward URLs: the kind from the scheme, a stable name from the address, every option at its default', () => {
  const [mqtt, db, web] = resolveSinks({ forward: ['mqtt://broker.local:1883', 'postgres://m@db.local/telemetry', 'https://example.org/in'] }, {});
  assert.equal([mqtt!.kind, mqtt!.name, db!.kind, db!.name, web!.kind, web!.name],
    ['mqtt', 'mqtt-broker.local-1883', 'postgres', 'postgres-db.local-telemetry', 'http', 'http-example.org-in']);
  assert.equal(db, {
    name: 'postgres-db.local-telemetry', kind: 'postgres', url: 'postgres://m@db.local/telemetry', start: 'beginning',
    batchRecords: 500, batchBytes: 1048576, lingerMs: 100, retry: { minMs: 250, maxMs: 30000 }, failingAfterMs: 60000, timeoutMs: 10000,
    table: 'meridian_events', password: undefined, ephemeral: false, ephemeralQueue: 1000,
  });
  assert.equal(mqtt, { ...mqtt!, prefix: 'meridian', retainCurrent: true, username: undefined, password: undefined, ephemeral: true, ephemeralQueue: 1000 });
  assert.equal([web!.ephemeral, web!.ephemeralQueue], [true, 1000]);
});

test('--config: [[sink]] tables with options, secrets from the environment', () => {
  const toml = `[[sink]]\nname = "central"\nurl = "postgres://unit1@db/obs"\ntable = "unit1.events"\npassword_env = "PGPASS"\nbatch_records = 1000
[[sink]]\nname = "cloud"\nurl = "https://example.org/in"\nheaders = { "X-Unit" = "1" }\nheader_env = { Authorization = "CLOUD_AUTH" }\nstart = "end"`;
  const [central, cloud] = resolveSinks({ configText: toml, configFile: 'f.toml' }, { PGPASS: 'pw', CLOUD_AUTH: 'Bearer t' });
  assert.equal([central!.kind === 'postgres' && central!.table, central!.kind === 'postgres' && central!.password, central!.batchRecords],
    ['unit1.events', 'pw', 1000]);
  assert.equal(cloud!.kind === 'http' && cloud!.headers, { 'X-Unit': '1', Authorization: 'Bearer t' });
  assert.is(cloud!.start, 'end');
});

test('--config: ephemeral events per sink (on for MQTT and HTTP by default, off for PostgreSQL), and their queue', () => {
  const toml = `[[sink]]\nurl = "mqtt://b"\nephemeral = false\n[[sink]]\nurl = "http://h/in"\nephemeral_queue = 5\n[[sink]]\nurl = "postgres://d/x"\nephemeral = false`;
  const sinks = resolveSinks({ configText: toml, configFile: 'f.toml' }, {});
  assert.equal(sinks.map((s) => [s.kind, s.ephemeral, s.ephemeralQueue]), [['mqtt', false, 1000], ['http', true, 5], ['postgres', false, 1000]]);
});

test('bad forwarding settings: the option, what was expected and what was given', () => {
  const rows: Array<[string, Parameters<typeof resolveSinks>[0], string]> = [
    ['unknown scheme', { forward: ['ftp://x'] }, '--forward url must be an mqtt://, mqtts://, postgres://, http:// or https:// URL; got "ftp://x"'],
    ['not a URL', { forward: ['db.local'] }, '--forward url must be an mqtt://, postgres:// or http(s):// URL; got "db.local"'],
    ['same sink twice', { forward: ['mqtt://b', 'mqtt://b'] }, 'sink name must be unique across sinks (it names the cursor file); got "mqtt-b"'],
    ['not TOML', { configText: '[[sink]\n', configFile: 'f.toml' }, '--config must be a TOML file'],
    ['unknown top-level key', { configText: 'sinks = 1', configFile: 'f.toml' }, 'f.toml: sinks must be a known key ([[sink]], [safety], [[alarm]], [[notify]], [conditions], [boltwood], [alpaca]); got "sinks"'],
    ['unknown key', { configText: '[[sink]]\nurl = "mqtt://b"\ntable = "x"', configFile: 'f.toml' }, 'f.toml: sink 1: table must be a known key for a mqtt sink (see docs/forwarding.md); got "table"'],
    ['missing url', { configText: '[[sink]]\nname = "x"', configFile: 'f.toml' }, 'f.toml: sink 1 url must be a string; got "(missing)"'],
    ['batch of 0', { configText: '[[sink]]\nurl = "mqtt://b"\nbatch_records = 0', configFile: 'f.toml' }, 'f.toml: sink 1 batch_records must be a whole number from 1 to 100000; got 0'],
    ['unset secret', { configText: '[[sink]]\nurl = "postgres://b/x"\npassword_env = "NOPE"', configFile: 'f.toml' }, 'f.toml: sink 1 password_env must be the name of a set environment variable (NOPE is not set); got "NOPE"'],
    ['bad table', { configText: '[[sink]]\nurl = "postgres://b/x"\ntable = "Drop Table"', configFile: 'f.toml' }, 'f.toml: sink 1 table must be a lower-case name (letters, digits, _), optionally schema.table; got "Drop Table"'],
    ['ephemeral into PostgreSQL', { configText: '[[sink]]\nurl = "postgres://b/x"\nephemeral = true', configFile: 'f.toml' }, 'f.toml: sink 1 ephemeral must be false for a PostgreSQL sink (its table keeps durable events only; see docs/forwarding.md); got true'],
    ['ephemeral not a boolean', { configText: '[[sink]]\nurl = "mqtt://b"\nephemeral = "yes"', configFile: 'f.toml' }, 'f.toml: sink 1 ephemeral must be true or false; got "yes"'],
    ['ephemeral queue of 0', { configText: '[[sink]]\nurl = "http://h"\nephemeral_queue = 0', configFile: 'f.toml' }, 'f.toml: sink 1 ephemeral_queue must be a whole number from 1 to 100000; got 0'],
    ['ephemeral queue for PostgreSQL', { configText: '[[sink]]\nurl = "postgres://b/x"\nephemeral_queue = 5', configFile: 'f.toml' }, 'f.toml: sink 1: ephemeral_queue must be a known key for a postgres sink (see docs/forwarding.md); got "ephemeral_queue"'],
    ['wildcard prefix', { configText: '[[sink]]\nurl = "mqtt://b"\nprefix = "a/#"', configFile: 'f.toml' }, 'f.toml: sink 1 prefix must be a topic without +, # or NUL; got "a/#"'],
  ];
  for (const [name, input, message] of rows) {
    assert.throws(() => resolveSinks(input, {}), (e: Error) => e.name === 'ConfigError' && e.message.startsWith(message), name);
  }
});

test('telemetry run with a bad --forward: one line naming it, exit 2', async () => {
  const run = await cli(['run', '--port', String(await freePort()), '--forward', 'ftp://x']);
  assert.is(run.code, 2);
  assert.is(run.stderr, 'telemetry: --forward url must be an mqtt://, mqtts://, postgres://, http:// or https:// URL; got "ftp://x" (see "telemetry run --help")\n');
});

test('sinkLine: state, lag, last success, retries, dead letters, ephemeral events dropped, what was skipped, a clash, the last error while retrying or failing', () => {
  const ok: SinkStatus = { name: 'db', kind: 'postgres', url: 'postgres://db/x', state: 'ok', lag_events: 0, lag_seconds: 0,
    last_success: '2026-03-17T20:00:01.000Z', retries: 0, dead_letters: 0, last_error: null, delivered: 12, ephemeral_sent: 0, ephemeral_dropped: 0, skipped: [] };
  const rows: Array<[string, SinkStatus, string]> = [
    ['caught up', ok, '  sink db (postgres) ok  lag 0 events  last success 2026-03-17T20:00:01.000Z'],
    ['recovered', { ...ok, retries: 1, dead_letters: 2, last_error: 'x' }, '  sink db (postgres) ok  lag 0 events  last success 2026-03-17T20:00:01.000Z  1 retry  2 dead letters'],
    ['failing', { ...ok, state: 'failing', lag_events: 1, lag_seconds: 95.2, last_success: null, retries: 41, last_error: 'connect ECONNREFUSED' },
      '  sink db (postgres) failing  lag 1 event / 95.2s  last success never  41 retries  last error: connect ECONNREFUSED'],
    ['ephemeral dropped', { ...ok, kind: 'http', ephemeral_sent: 5, ephemeral_dropped: 1 }, '  sink db (http) ok  lag 0 events  last success 2026-03-17T20:00:01.000Z  1 ephemeral dropped'],
    ['skipped', { ...ok, state: 'skipped', skipped: ['/s/site_20260316.ndjson is gone: the site events after site:40 in it were not forwarded'] },
      '  sink db (postgres) skipped  lag 0 events  last success 2026-03-17T20:00:01.000Z  skipped: /s/site_20260316.ndjson is gone: the site events after site:40 in it were not forwarded'],
    ['skipped twice', { ...ok, state: 'skipped', skipped: ['a', 'b'] }, '  sink db (postgres) skipped  lag 0 events  last success 2026-03-17T20:00:01.000Z  skipped: b (and 1 more)'],
    ['a clash', { ...ok, kind: 'mqtt', clash: 'another daemon (instance i2) forwards as unit "u" to m/u now; give each unit its own --unit-id (2026-03-17T20:00:02.000Z)' },
      '  sink db (mqtt) ok  lag 0 events  last success 2026-03-17T20:00:01.000Z  clash: another daemon (instance i2) forwards as unit "u" to m/u now; give each unit its own --unit-id (2026-03-17T20:00:02.000Z)'],
  ];
  for (const [name, status, line] of rows) assert.is(sinkLine(status), line, name);
});

test('telemetry status prints a line per sink; a sink whose peer never answers cannot hold up shutdown', async () => {
  const peer = await startPeer();
  await withSilentListener(async (silent) => {
    const hung = `127.0.0.1:${silent.port}`;
    const d = await spawnDaemon({ args: ['--forward', peer.url, '--forward', `postgres://x@${hung}/db`, '--forward', `mqtt://${hung}`] });
    try {
      await postEvent(d.url, { type: 'weather', data: 1 });
      const name = `http-127.0.0.1-${new URL(peer.url).port}-ingest`;
      await caughtUp(d.url, name);
      const status = await cli(['status', '--port', String(d.port), '--host', '127.0.0.1']);
      assert.is(status.code, 0);
      const lines = status.stdout.split('\n');
      assert.match(lines[1]!, /^rollups ok( {2}last rebuild \S+ \([^)]*\))?$/);
      assert.match(lines[2]!, new RegExp(`^  sink ${name} \\(http\\) ok  lag 0 events  last success \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z$`));
      assert.match(lines[3]!, new RegExp(`^  sink postgres-127.0.0.1-${silent.port}-db \\(postgres\\) (ok|retrying)  lag 1 event`));
      assert.match(lines[4]!, new RegExp(`^  sink mqtt-127.0.0.1-${silent.port} \\(mqtt\\) (ok|retrying)  lag 1 event`));
      await silent.connected();
    } finally {
      d.child.kill('SIGTERM');
      // the two hung sinks are given 2 s to finish their batch and 2 s to close
      const exited = await Promise.race([d.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 8000))]);
      if (exited === 'still running') d.child.kill('SIGKILL');
      assert.is(exited, 0);
      await peer.down();
      removeDir(d.siteDir);
    }
  });
});

test.run();
