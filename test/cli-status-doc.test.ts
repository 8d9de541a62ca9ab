import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { ROOT, startTestDaemon } from './helpers/daemon.js';
import { QUICK, sinksOf, startPeer } from './helpers/forward.js';

// The `status --json` example of docs/cli.md has the keys a real daemon answers (with a
// forwarding sink), in its order: a field added to /status cannot be left out of it.

const DOC = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');

/** The key paths of a JSON value, in order: objects by key, the first element of each array (the keys of max_age and learned are types: not followed). */
function keyPaths(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.length === 0 ? [] : keyPaths(value[0], `${at}[]`);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [`${at}${at ? '.' : ''}${k}`, ...(k === 'max_age' || k === 'learned' ? [] : keyPaths(v, `${at}${at ? '.' : ''}${k}`))]);
}

test('the status --json example in cli.md has exactly the keys of a real answer (with a sink)', async () => {
  const example = /\$ telemetry status --json\n(\{.*\})\n/.exec(DOC);
  assert.ok(example, 'cli.md has a status --json example');
  const peer = await startPeer();
  const d = await startTestDaemon({ forward: sinksOf(`[[sink]]\nname = "peer"\nurl = "${peer.url}"\n${QUICK}`) });
  try {
    const run = await cli(['status', '--json', '--host', '127.0.0.1', '--port', String(d.port)]);
    assert.equal([run.code, run.stderr], [0, '']);
    assert.equal(keyPaths(JSON.parse(example[1]!)), keyPaths(JSON.parse(run.stdout)));
  } finally {
    await d.close();
    await peer.down();
  }
});

test.run();
