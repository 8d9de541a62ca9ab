import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { withTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// meridian.stale and meridian.fresh are recorded by the daemon alone (docs/http-api.md), like
// meridian.safety and the alarms' types: a forged one would stand in the files and the night
// report as a gap that never was. Refused on every way in, `telemetry import` saying why.

const refusal = (type: string) => `type ${type} is recorded by the daemon alone (docs/http-api.md); post another type.`;

test('a caller cannot post meridian.stale or meridian.fresh: 422 on POST /event and POST /events, nothing recorded', () => withTestDaemon({}, async (d) => {
  for (const type of ['meridian.stale', 'meridian.fresh']) {
    const forged = JSON.stringify({ type, data: { type: 'weather', age_s: 90 } });
    const one = await request(d.url, '/event', { method: 'POST', body: forged, headers: { 'content-type': 'application/json' } });
    assert.equal([one.status, one.json], [422, { detail: refusal(type), code: 'INVALID_BODY' }]);
    const batch = await request(d.url, '/events?partial=true', { method: 'POST', body: `{"type":"weather","data":1}\n${forged}\n`, headers: { 'content-type': 'application/x-ndjson' } });
    assert.equal([batch.status, batch.json.code, batch.json.recorded, batch.json.failures[0].detail], [422, 'BATCH_PARTLY_RECORDED', 1, refusal(type)]);
  }
  assert.equal((await request(d.url, '/history?type=meridian.stale,meridian.fresh')).json.events, []);
}));

test('telemetry import of a file holding them: each line named with the reason, nothing of the batch recorded (exit 1)', () => withTestDaemon({}, async (d) => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'night.ndjson');
    fs.writeFileSync(file, '{"type":"weather","data":1}\n{"type":"meridian.stale","data":{"type":"weather"}}\n{"type":"meridian.fresh","data":{"type":"weather"}}\n');
    const run = await cli(['import', file, '--port', String(d.port), '--host', '127.0.0.1']);
    assert.equal([run.code, run.stdout, run.stderr], [1, '',
      `telemetry: line 2: ${refusal('meridian.stale')} (INVALID_BODY)\nline 3: ${refusal('meridian.fresh')} (INVALID_BODY)\n` +
      `the batch of lines 1-3 was refused (nothing of it recorded); 0 event(s) before it were recorded. Fix the lines above and go on with: telemetry import ${file} --start-line 1; or use --partial to record the valid ones.\n`]);
    assert.is((await request(d.url, '/current')).text, '{"current":{}}');
  } finally {
    removeDir(dir);
  }
}));

test.run();
