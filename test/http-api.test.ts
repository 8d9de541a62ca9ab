import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VERSION } from '../lib/version.js';
import { startTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';

test('GET /health and /ready answer with the exact bodies', async () => {
  const d = await startTestDaemon();
  try {
    const health = await request(d.url, '/health');
    assert.is(health.status, 200);
    assert.is(health.text, '{"ok":true}');
    assert.is(health.headers['content-type'], 'application/json');
    const ready = await request(d.url, '/ready');
    assert.equal(ready.json, { ready: true, run_active: false, version: VERSION });
  } finally {
    await d.close();
    removeDir(d.siteDir);
  }
});

test.run();
