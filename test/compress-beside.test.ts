import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeMember } from '../daemon/ndjson/gzip-members.js';
import { startDaemon } from '../daemon/server.js';
import { resolveDaemonConfig } from '../lib/config.js';
import { createLogger } from '../lib/log.js';
import { ManualClock } from './helpers/clock.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A compression pass never writes over a .gz that is no whole copy of the plain file beside it
// (hostile test, issue 23, finding 1a: a whole day's .gz was overwritten by a 1000-line plain
// file's): both kept, nothing compressed, logged once, /status says why.

const NOW = '2026-03-17T20:00:00.000Z';
const DAY = 86_400_000;

function lines(from: number, to: number): Buffer {
  const out = [];
  for (let seq = from; seq <= to; seq++) out.push(`${JSON.stringify({ seq, ts: '2026-03-01T00:00:00.000Z', type: 'x', data: seq, meta: {} })}\n`);
  return Buffer.from(out.join(''));
}

// [what, the plain file's path in the site directory]
const ROWS: [string, string][] = [
  ['a day file', 'site_20260310.ndjson'],
  ['a stopped run\'s file', path.join('001', 'telemetry.ndjson')],
];

for (const [what, name] of ROWS) {
  test(`${what} beside a .gz holding more lines: both kept as they were, nothing compressed, logged once, in /status`, async () => {
    const dir = tempDir();
    const plain = path.join(dir, name);
    fs.mkdirSync(path.dirname(plain), { recursive: true });
    fs.writeFileSync(plain, lines(1, 3));
    const gz = encodeMember(lines(1, 500));
    fs.writeFileSync(`${plain}.gz`, gz);
    const old = new Date(Date.parse(NOW) - 7 * DAY);
    fs.utimesSync(plain, old, old);
    const log: string[] = [];
    const logger = createLogger((l) => log.push(l), 'info', () => Date.parse(NOW));
    const config = { ...resolveDaemonConfig({ host: '127.0.0.1', siteDir: dir, compressAfter: '2d' }, { TZ: 'UTC' }, dir), port: 0 };
    const d = await startDaemon(config, { clock: new ManualClock(NOW), logger, snapshotIntervalMs: 0, housekeepingIntervalMs: 0 });
    try {
      const first = await d.housekeeping!.runOnce();
      const second = await d.housekeeping!.runOnce();
      assert.equal([first.compressed, first.kept, second.compressed, second.kept], [[], [plain], [], [plain]]);
      assert.ok(fs.readFileSync(`${plain}.gz`).equals(gz));
      assert.ok(fs.readFileSync(plain).equals(lines(1, 3)));
      const reason = `no whole copy of the plain file beside it (it holds ${lines(1, 500).length} bytes of lines, the plain file ${lines(1, 3).length}): `
        + 'both kept, the plain file is the one read; nothing is compressed over it until one of the two is removed';
      assert.equal(log.filter((l) => l.includes('whole copy') || l.includes('compressed')), [`2026-03-17T20:00:00.000Z WARN ${plain}.gz: ${reason}\n`]);
      const status = (await request(`http://127.0.0.1:${d.port}`, '/status')).json;
      assert.equal(status.damaged, [{ file: `${plain}.gz`, reason }]);
    } finally {
      await d.close();
      removeDir(dir);
    }
  });
}

test.run();
