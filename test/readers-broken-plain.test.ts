import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeMember } from '../daemon/ndjson/gzip-members.js';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A broken plain file beside a good `.gz` of the same day or run (hostile tester D, issue 23,
// finding N9): an empty file or a looping link never hides the events the `.gz` holds; the
// plain file is named (log, /status) and left as it is, and the `.gz` is served.

const NOW = '2026-03-17T20:00:00.000Z';
const line = (seq: number, day: string, runId?: string) => `${JSON.stringify({ seq, ts: `2026-03-${day}T13:00:00.000Z`, type: 'a', data: seq,
  meta: runId ? { run_id: runId } : {} })}\n`;
const lines = (from: number, to: number, day: string, runId?: string) => Array.from({ length: to - from + 1 }, (_, i) => line(from + i, day, runId)).join('');
const R1 = { run_id: 'r1', file: 'r1/telemetry.ndjson' };
const TIMELINE = [{ event: 'run_start', at: '2026-03-16T14:00:00.000Z', ...R1, site_seq: 5, run_seq: 0 },
  { event: 'run_stop', at: '2026-03-16T15:00:00.000Z', ...R1, site_seq: 5, run_seq: 2 }].map((l) => `${JSON.stringify(l)}\n`).join('');

type Broken = 'empty' | 'a looping link';
const REASONS: Record<Broken, string> = { empty: 'it holds no line (0 bytes)', 'a looping link': 'it cannot be read (ELOOP)' };

function breakPlain(file: string, how: Broken): void {
  if (how === 'empty') fs.writeFileSync(file, '');
  else fs.symlinkSync(path.basename(file), file);
}

// [the broken plain file (relative), the site directory's other files]
const PLACES: [string, Record<string, string | Buffer>][] = [
  ['site_20260316.ndjson', { 'site_20260315.ndjson': lines(1, 3, '15'), 'site_20260316.ndjson.gz': encodeMember(Buffer.from(lines(4, 5, '16'))) }],
  ['r1/telemetry.ndjson', {
    'site_20260315.ndjson': lines(1, 3, '15'), 'site_20260316.ndjson': lines(4, 5, '16'),
    'r1/telemetry.ndjson.gz': encodeMember(Buffer.from(lines(1, 2, '16', 'r1'))), '.meridian/timeline.ndjson': TIMELINE,
  }],
];

for (const [name, files] of PLACES) {
  for (const how of ['empty', 'a looping link'] as const) {
    test(`${name} ${how} beside its good .gz: named in the log and /status, the .gz served by /history and /stream`, async () => {
      const siteDir = tempDir();
      for (const [file, bytes] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(siteDir, file)), { recursive: true });
        fs.writeFileSync(path.join(siteDir, file), bytes);
      }
      const plain = path.join(siteDir, name);
      breakPlain(plain, how);
      const d = await startTestDaemon({ siteDir, clock: new ManualClock(NOW) });
      try {
        const history = (await request(d.url, '/history')).json;
        const run = name.startsWith('r1');
        assert.equal(history.events.map((e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`),
          ['site:1', 'site:2', 'site:3', 'site:4', 'site:5', ...(run ? ['r1:1', 'r1:2'] : [])]);
        const stream = new SseReader(d.url, '/stream?since=site:0');
        try {
          await stream.live();
          assert.equal(stream.named('replay').length, run ? 7 : 5);
        } finally {
          stream.close();
        }
        assert.equal((await request(d.url, '/status')).json.damaged, [{ file: plain, reason: `${REASONS[how]}, beside its .gz: the .gz is read` }]);
        assert.equal(d.logs.filter((l) => l.includes(' WARN ') && l.includes(plain)).map((l) => l.slice(25)),
          [`WARN ${plain}: ${REASONS[how]}, beside ${plain}.gz: the .gz is read (the plain file is left as it is)`]);
      } finally {
        await d.close();
      }
      assert.is(how === 'empty' ? fs.statSync(plain).size : fs.readlinkSync(plain), how === 'empty' ? 0 : path.basename(plain), 'left as it is');
      removeDir(siteDir);
    });
  }
}

test.run();
