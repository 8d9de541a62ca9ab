import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, withTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The Alpaca server through the real CLI (`telemetry run --config`: the daemon's edge reads
// [alpaca], [safety] and [conditions]), stopped with the daemon; and discovery over IPv6 loopback.

test('telemetry run --config with [alpaca]: served, shown in /status, closed with the daemon', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'meridian.toml');
  fs.writeFileSync(config, '[alpaca]\nport = 0\ndiscovery_port = 0\n[conditions]\ntemperature = { type = "weather", field = "data.t" }\n');
  const d = await spawnDaemon({ siteDir: path.join(dir, 'site'), args: ['--config', config] });
  try {
    const alpaca = (await request(d.url, '/status')).json.alpaca as { address: string; port: number; discovery_port: number };
    assert.is(alpaca.address, `127.0.0.1:${alpaca.port}`);
    const devices = await request(`http://127.0.0.1:${alpaca.port}`, '/management/v1/configureddevices?ClientTransactionID=3');
    assert.equal(devices.json.Value.map((v: { DeviceType: string }) => v.DeviceType), ['SafetyMonitor', 'ObservingConditions']);
    assert.is(devices.json.ClientTransactionID, 3);
    assert.ok(d.stderr().includes(`ASCOM Alpaca on http://127.0.0.1:${alpaca.port} (SafetyMonitor 0, ObservingConditions 0), discovery on UDP ${alpaca.discovery_port}`), d.stderr());
    assert.is((await request(d.url, '/shutdown', { method: 'POST' })).status, 200);
    assert.is(await d.exited, 0);
    const refused = await request(`http://127.0.0.1:${alpaca.port}`, '/management/apiversions').then(() => 'answered', (e: NodeJS.ErrnoException) => e.code);
    assert.is(refused, 'ECONNREFUSED', 'the Alpaca port is closed with the daemon');
  } finally {
    d.child.kill('SIGKILL');
    await d.exited;
    removeDir(dir);
  }
});

test('a bad [alpaca] key stops telemetry run with exit 2 and one line naming it', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'meridian.toml');
  fs.writeFileSync(config, '[alpaca]\nport = "eleven"\n');
  const error = await spawnDaemon({ siteDir: path.join(dir, 'site'), args: ['--config', config] }).then(() => undefined, (e: Error) => e.message);
  removeDir(dir);
  assert.match(String(error), /daemon exited \(2\) before listening:\n.*alpaca: port must be a port number 0-65535 \(0: an ephemeral port\); got "eleven" \(see "meridian telemetry run --help"\)\n$/);
});

test('discovery over IPv6 loopback when bind is ::1', () => withTestDaemon({ config: '[alpaca]\nport = 0\nbind = "::1"\ndiscovery_port = 0\n' }, async (d) => {
  const alpaca = d.daemon.alpaca!;
  assert.is(alpaca.address, `[::1]:${alpaca.port}`);
  assert.not.ok(d.logs.some((l) => l.includes('no authentication')), 'loopback: no warning');
  const socket = dgram.createSocket('udp6');
  const answer = await new Promise<string>((resolve, reject) => {
    socket.on('message', (m) => resolve(m.toString('utf8')));
    socket.on('error', reject);
    socket.bind(0, '::1', () => socket.send('alpacadiscovery1', alpaca.discoveryPort!, '::1'));
  }).finally(() => socket.close());
  assert.is(answer, `{"AlpacaPort":${alpaca.port}}`);
  const text = await new Promise<string>((resolve, reject) => {
    http.get({ host: '::1', port: alpaca.port, path: '/management/apiversions', agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString('utf8'); });
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
  assert.is(text, '{"Value":[1],"ClientTransactionID":0,"ServerTransactionID":1,"ErrorNumber":0,"ErrorMessage":""}');
}));

test.run();
