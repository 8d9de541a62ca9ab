import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient } from '../client/index.js';
import { parseConfigFile } from '../lib/config-file.js';
import { resolveSafety } from '../daemon/safety/config.js';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinksOf, startPeer } from './helpers/forward.js';
import { request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';

// The verdict on every way out: its meridian.safety events forwarded by a sink (a real local
// HTTP peer) and on /history and /current; GET /safety through the client, decoded and as text.

const CONFIG = '[safety]\n[[safety.rule]]\nname = "wind"\nwhen = "weather.data.w > 40"\nclear = "weather.data.w < 30"\n';

test('meridian.safety events: forwarded, in history, current; the client reads /safety decoded and as the daemon\'s bytes', async () => {
  const peer = await startPeer();
  const safety = resolveSafety(parseConfigFile(CONFIG, 'test.toml').safety, 'test.toml');
  const d = await startTestDaemon({ forward: sinksOf(`[[sink]]\nname = "peer"\nurl = "${peer.url}"\n${QUICK}`), safety, safetyIntervalMs: 0 });
  const client = new TelemetryClient({ baseUrl: d.url });
  try {
    for (const w of [10, 45.0, 35, 20]) {
      await client.postEventText('weather', `{"w":${w === 45 ? '45.0' : w}}`);
      await client.safety();
    }
    // the real clock moves between two answers: ages aside, the same bytes, the value as posted
    const ageless = (t: string) => t.replace(/"age_s":[\d.]+/g, '"age_s":0');
    const text = await client.safetyText();
    assert.is(ageless(text), ageless((await request(d.url, '/safety')).text));
    assert.match(text, /^\{"safe":true,"since":"[^"]+","reasons":\[\],"inputs":\{"weather":\{"age_s":[\d.]+,"stale":false,"value":\{"w":20\}\}\},"configured":true\}$/);
    const decoded = await client.safety();
    assert.equal({ ...decoded, inputs: {} }, { ...(JSON.parse(text) as typeof decoded), inputs: {} });
    assert.equal(decoded.inputs.weather?.value, { w: 20 });
    await caughtUp(d.url, 'peer');
    const forwarded = peer.records.filter((r) => (r.envelope as { type: string }).type === 'meridian.safety').map((r) => JSON.stringify(r.envelope));
    const history = ((await request(d.url, '/history?type=meridian.safety')).json.events as unknown[]).map((e) => JSON.stringify(e));
    assert.equal(forwarded, history);
    assert.equal(history.map((e) => (JSON.parse(e) as { data: { safe: boolean } }).data.safe), [false, true, false, true]);
    assert.is((await request(d.url, '/current/meridian.safety')).text, history.at(-1));
  } finally {
    client.close();
    await d.close();
    await peer.down();
    removeDir(d.siteDir);
  }
});

test('a caller cannot post meridian.safety (a forged verdict would be believed after a restart): 422 on every way in, nothing recorded', async () => {
  const d = await startTestDaemon({});
  try {
    const forged = '{"type":"meridian.safety","data":{"safe":true,"reasons":[],"since":"2026-11-25T00:00:00.000Z"}}';
    const one = await request(d.url, '/event', { method: 'POST', body: forged, headers: { 'content-type': 'application/json' } });
    assert.equal([one.status, one.json], [422, { detail: 'type meridian.safety is recorded by the daemon alone (docs/safety.md); post another type.', code: 'INVALID_BODY' }]);
    const batch = await request(d.url, '/events', { method: 'POST', body: `{"type":"weather","data":1}\n${forged}\n`, headers: { 'content-type': 'application/x-ndjson' } });
    assert.equal([batch.status, batch.json.code], [422, 'INVALID_BATCH']);
    assert.is((await request(d.url, '/current')).text, '{"current":{}}');
  } finally {
    await d.close();
    removeDir(d.siteDir);
  }
});

test.run();
