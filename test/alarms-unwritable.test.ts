import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';
import { alarmSite } from './helpers/alarm-config.js';

// A state file that cannot be written (hostile tester E, finding 3: alarms.json replaced by a
// directory, EISDIR) never makes an alarm show normal while its condition holds: the alarm is
// raised in memory and its event recorded, /alarms and /status say the state is not durable,
// an acknowledgement is refused (503) and changes nothing; once the file can be written again
// the error is gone. The same at start-up.

const CONFIG = '[[alarm]]\nid = "wind"\nseverity = "critical"\nwhen = "wind.data.v > 40"\nmessage = "wind high"\n';
const ERROR = 'the alarm state could not be written (EISDIR)';

async function transitions(d: ChildDaemon): Promise<unknown[]> {
  assert.is((await postEvent(d.url, { type: 'marker', data: 1 })).status, 200);
  return ((await request(d.url, '/history?type=meridian.alarm&limit=100')).json.events as { data: unknown }[]).map((e) => e.data);
}

async function wind(d: ChildDaemon): Promise<{ state: string; active: boolean; value: unknown; body: Record<string, unknown> }> {
  const body = (await request(d.url, '/alarms')).json as { alarms: { state: string; active: boolean; value: unknown }[] };
  return { ...body.alarms[0]!, body };
}

test('alarms.json turned into a directory while running, and at start: raised all the same, not durable said, ack refused', async () => {
  const { dir, site, file, args } = alarmSite(CONFIG);
  let d = await spawnDaemon({ siteDir: site, args });
  try {
    await postEvent(d.url, { type: 'wind', data: { v: 10 } });
    fs.rmSync(file, { force: true });
    fs.mkdirSync(file);
    await postEvent(d.url, { type: 'wind', data: { v: 50 } });
    const raised = await waitFor('wind raised', async () => { const w = await wind(d); return w.state === 'unack' ? w : undefined; });
    assert.equal([raised.active, raised.value, raised.body.state_error], [true, 50, ERROR]);
    assert.is((await request(d.url, '/status')).json.alarm_state_error, ERROR);
    const ack = await request(d.url, '/alarms/wind/ack', { method: 'POST', body: { by: 'ops' } });
    assert.equal([ack.status, ack.json], [503, { detail: `Alarm wind was left as it was: ${ERROR}.`, code: 'STORAGE_UNAVAILABLE' }]);
    assert.is((await wind(d)).state, 'unack');
    assert.equal(await transitions(d), [{ id: 'wind', from: 'normal', to: 'unack', severity: 'critical', value: 50 }]);
    assert.is(d.stderr().split(ERROR).length - 1, 1, 'logged once, not once a look');

    fs.rmdirSync(file);
    await postEvent(d.url, { type: 'wind', data: { v: 10 } });
    const cleared = await waitFor('wind normal', async () => { const w = await wind(d); return w.state === 'normal' ? w : undefined; });
    assert.equal(Object.keys(cleared.body), ['alarms'], 'durable again: no state_error');
    assert.is((await request(d.url, '/status')).json.alarm_state_error, undefined);

    d.child.kill('SIGKILL');
    await d.exited;
    fs.rmSync(file, { force: true });
    fs.mkdirSync(file);
    d = await spawnDaemon({ siteDir: site, args, port: d.port });
    await postEvent(d.url, { type: 'wind', data: { v: 60 } });
    const again = await waitFor('wind raised at start', async () => { const w = await wind(d); return w.state === 'unack' ? w : undefined; });
    assert.equal([again.active, again.value, again.body.state_error], [true, 60, ERROR]);
  } finally {
    d.child.kill('SIGKILL');
    await d.exited;
    removeDir(dir);
  }
});

test.run();
