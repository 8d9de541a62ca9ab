import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';
import { POWER_AND_DEW } from './helpers/alarm-config.js';

// Alarm state across kill -9, through the real executables: an acknowledged critical alarm
// and a shelved warning come back exactly as they were, and no transition is recorded twice.
// The acknowledgement and the shelf go through the CLI (`telemetry ack`, `telemetry shelve`).

const CONFIG = POWER_AND_DEW;

/** The data of every meridian.alarm event in the history, in record order. */
async function transitions(d: ChildDaemon): Promise<unknown[]> {
  const page = await request(d.url, '/history?type=meridian.alarm&limit=100');
  return (page.json.events as { data: Record<string, unknown> }[]).map((e) => e.data);
}

/** Post a marker and return once it is recorded: whatever the daemon appended before it is in the history. */
async function settled(d: ChildDaemon): Promise<void> {
  assert.is((await postEvent(d.url, { type: 'marker', data: 1 })).status, 200);
}

test('kill -9 with an acknowledged critical and a shelved warning: /alarms is identical after the restart, no transition twice', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'meridian.toml');
  fs.writeFileSync(config, CONFIG);
  const site = path.join(dir, 'site');
  const args = ['--config', config];
  let d = await spawnDaemon({ siteDir: site, args });
  try {
    const port = ['--port', String(d.port), '--host', '127.0.0.1'];
    await postEvent(d.url, { type: 'power', data: { v: 0 } });
    await postEvent(d.url, { type: 'weather', data: { dd: 1.5 } });
    const listed = await cli(['alarms', ...port]);
    assert.is(listed.code, 4);
    assert.match(listed.stdout, /^CRITICAL {2}power {2}unack since \S+ {2}value 0 {2}mains lost\nWARNING {2}dew {2}unack since \S+ {2}value 1\.5 {2}dew close\n$/);
    assert.is(listed.stderr, 'telemetry: 2 alarms not acknowledged: power, dew\n');
    const acked = await cli(['ack', 'power', '--by', 'night-ops', '--note', 'on generator', ...port]);
    assert.equal([acked.code, acked.stderr], [0, '']);
    assert.match(acked.stdout, /^CRITICAL {2}power {2}acked since \S+ {2}value 0 {2}mains lost {2}acked by night-ops at \S+\n$/);
    const shelved = await cli(['shelve', 'dew', '--for', '2h', '--by', 'night-ops', ...port]);
    assert.equal([shelved.code, shelved.stderr], [0, '']);
    const again = await cli(['ack', 'power', '--by', 'night-ops', ...port]);
    assert.equal([again.code, again.stdout], [1, '']);
    assert.match(again.stderr, /^telemetry: alarm power has nothing to acknowledge: it was acknowledged by night-ops at \S+ \(ALARM_NOT_UNACKED\)\n$/);
    assert.equal((await cli(['alarms', ...port])).code, 0, 'acknowledged and shelved: nothing waits');
    const before = await request(d.url, '/alarms');
    const json = await cli(['alarms', '--json', ...port]);
    assert.is(json.stdout, `${before.text}\n`);
    await settled(d);
    const recorded = await transitions(d);
    assert.equal(recorded, [
      { id: 'power', from: 'normal', to: 'unack', severity: 'critical', value: 0 },
      { id: 'dew', from: 'normal', to: 'unack', severity: 'warning', value: 1.5 },
      { id: 'power', from: 'unack', to: 'acked', severity: 'critical', by: 'night-ops', note: 'on generator' },
      { id: 'dew', from: 'unack', to: 'shelved', severity: 'warning', by: 'night-ops', shelved_until: before.json.alarms[1].shelved_until },
    ]);

    d.child.kill('SIGKILL');
    assert.is(await d.exited, 'SIGKILL');
    d = await spawnDaemon({ siteDir: site, args, port: d.port });
    await settled(d);
    const after = await request(d.url, '/alarms');
    assert.is(after.text, before.text);
    assert.equal(await transitions(d), recorded);
  } finally {
    d.child.kill('SIGKILL');
    await d.exited;
    removeDir(dir);
  }
});

test('a damaged state file is set aside: every alarm starts normal and is raised again when its condition holds', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'meridian.toml');
  fs.writeFileSync(config, CONFIG);
  const site = path.join(dir, 'site');
  fs.mkdirSync(path.join(site, '.meridian'), { recursive: true });
  fs.writeFileSync(path.join(site, '.meridian', 'alarms.json'), '{"version":1,"alarms":{"power":{"state":"sideways"}}}');
  const d = await spawnDaemon({ siteDir: site, args: ['--config', config] });
  try {
    assert.match(d.stderr(), /alarm state \S+alarms\.json is damaged \(set aside as alarms\.json\.damaged-\d+\); every alarm starts normal and is raised again if its condition holds/);
    assert.equal((await request(d.url, '/alarms')).json.alarms.map((a: { id: string; state: string }) => `${a.id} ${a.state}`), ['power normal', 'dew normal']);
    assert.equal(fs.readdirSync(path.join(site, '.meridian')).filter((f) => f.startsWith('alarms.json.damaged-')).length, 1);
  } finally {
    d.child.kill('SIGKILL');
    await d.exited;
    removeDir(dir);
  }
});

test.run();
