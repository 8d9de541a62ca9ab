import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// After a restart (clean or kill -9) the verdict starts from the view's latest meridian.safety
// reading: safe stays safe, with its since, only if the inputs still say safe; a raised rule
// stays raised (its hysteresis survives); no event is recorded unless the verdict changed.

const RULE = (when: string, clear: string) => `[safety]\nrequired = ["weather"]\n[[safety.rule]]\nname = "wind"\nwhen = "${when}"\nclear = "${clear}"\n`;

test('restart: safe kept with its since only while the inputs say safe; raised stays raised; one event per change', async () => {
  const dir = tempDir();
  const site = path.join(dir, 'site');
  const config = path.join(dir, 'meridian.toml');
  let daemon: ChildDaemon | undefined;
  const start = async (when: string, clear = 'weather.data.w < 30') => {
    fs.writeFileSync(config, RULE(when, clear));
    daemon = await spawnDaemon({ siteDir: site, port: daemon?.port, args: ['--config', config, '--max-age', 'weather=600'] });
  };
  const verdict = async () => (await request(daemon!.url, '/safety')).json as { safe: boolean; since: string; reasons: string[] };
  const events = async () => ((await request(daemon!.url, '/history?type=meridian.safety')).json.events as Array<{ data: { safe: boolean; since: string } }>)
    .map((e) => [e.data.safe, e.data.since]);
  const recorded = async () => (await request(daemon!.url, '/current/meridian.safety')).json?.data as { safe: boolean } | undefined;
  const stop = async () => { daemon!.child.kill('SIGTERM'); assert.is(await daemon!.exited, 0); };
  const kill9 = async () => { daemon!.child.kill('SIGKILL'); assert.is(await daemon!.exited, 'SIGKILL'); };
  try {
    await start('weather.data.w > 40');
    const first = await verdict();
    assert.equal([first.safe, first.reasons], [false, ['weather is missing (no reading)', 'rule wind cannot be judged: weather is missing (no reading)']]);
    await postEvent(daemon!.url, { type: 'weather', data: { w: 10 } });
    const safe = await verdict();
    assert.equal([safe.safe, safe.reasons], [true, []]);
    assert.equal(await recorded(), { safe: true, reasons: [], since: safe.since });
    await stop();

    // clean restart, inputs still safe: safe, the same since, nothing recorded
    await start('weather.data.w > 40');
    const kept = await verdict();
    assert.equal([kept.safe, kept.since, kept.reasons], [true, safe.since, []]);
    assert.equal(await events(), [[false, first.since], [true, safe.since]]);
    await postEvent(daemon!.url, { type: 'weather', data: { w: 45 } });
    await postEvent(daemon!.url, { type: 'weather', data: { w: 35 } });
    const raised = await verdict();
    assert.equal([raised.safe, raised.reasons], [false, ['rule wind: weather.data.w > 40']]);
    assert.equal(await recorded(), { safe: false, reasons: ['rule wind: weather.data.w > 40'], since: raised.since });
    await kill9();

    // kill -9 while raised, the reading (35) between clear and raise: still raised, same since, nothing recorded
    await start('weather.data.w > 40');
    const still = await verdict();
    assert.equal([still.safe, still.since, still.reasons], [false, raised.since, ['rule wind: weather.data.w > 40']]);
    assert.equal(await events(), [[false, first.since], [true, safe.since], [false, raised.since]]);
    await postEvent(daemon!.url, { type: 'weather', data: { w: 20 } });
    const safeAgain = await verdict();
    assert.equal([safeAgain.safe, safeAgain.reasons], [true, []]);
    assert.equal((await recorded())?.safe, true);
    await stop();

    // the rule was tightened while it was down: the inputs no longer say safe, unsafe at once (a new since, one event)
    await start('weather.data.w > 15', 'weather.data.w < 12');
    const tightened = await verdict();
    assert.equal([tightened.safe, tightened.reasons], [false, ['rule wind: weather.data.w > 15']]);
    assert.ok(tightened.since > safeAgain.since, `${tightened.since} after ${safeAgain.since}`);
    assert.equal((await recorded())?.safe, false);
    assert.equal((await events()).map(([s]) => s), [false, true, false, true, false]);
    await stop();
  } finally {
    if (daemon && daemon.child.exitCode === null && daemon.child.signalCode === null) {
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
    removeDir(dir);
  }
});

// hostile tester I, finding 1: a rule raised while the verdict was already unsafe for another
// reason is recorded (an event per change of the rules raised), so a kill -9 after the other
// reason went keeps it raised: the reading between clear and raise says unsafe, never SAFE
test('restart: a rule raised while already unsafe stays raised after kill -9 (its event recorded)', async () => {
  const dir = tempDir();
  const site = path.join(dir, 'site');
  const config = path.join(dir, 'meridian.toml');
  fs.writeFileSync(config, `${RULE('weather.data.w > 40', 'weather.data.w < 30')}[[safety.rule]]\nname = "rain"\nwhen = "rain.data.wet"\n`);
  let daemon = await spawnDaemon({ siteDir: site, args: ['--config', config, '--max-age', 'weather=600,rain=600'] });
  const reasons = async () => ((await request(daemon.url, '/safety')).json as { reasons: string[] }).reasons;
  try {
    await postEvent(daemon.url, { type: 'weather', data: { w: 10 } });
    await postEvent(daemon.url, { type: 'rain', data: { wet: true } });
    assert.equal(await reasons(), ['rule rain: rain.data.wet']);
    await postEvent(daemon.url, { type: 'weather', data: { w: 50 } });
    assert.equal(await reasons(), ['rule wind: weather.data.w > 40', 'rule rain: rain.data.wet']);
    await postEvent(daemon.url, { type: 'rain', data: { wet: false } });
    await postEvent(daemon.url, { type: 'weather', data: { w: 35 } });
    assert.equal(await reasons(), ['rule wind: weather.data.w > 40']);
    daemon.child.kill('SIGKILL');
    assert.is(await daemon.exited, 'SIGKILL');
    daemon = await spawnDaemon({ siteDir: site, port: daemon.port, args: ['--config', config, '--max-age', 'weather=600,rain=600'] });
    const after = (await request(daemon.url, '/safety')).json as { safe: boolean; reasons: string[] };
    assert.equal([after.safe, after.reasons], [false, ['rule wind: weather.data.w > 40']]);
    const events = ((await request(daemon.url, '/history?type=meridian.safety')).json.events as Array<{ data: { safe: boolean; reasons: string[] } }>).map((e) => [e.data.safe, e.data.reasons]);
    assert.equal(events.slice(-3), [[false, ['rule rain: rain.data.wet']], [false, ['rule wind: weather.data.w > 40', 'rule rain: rain.data.wet']], [false, ['rule wind: weather.data.w > 40']]]);
  } finally {
    daemon.child.kill('SIGKILL');
    await daemon.exited;
    removeDir(dir);
  }
});

test.run();
