import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeMember } from '../daemon/ndjson/gzip-members.js';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { postEvent } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The site seq never goes back (issue 23): with `.meridian/` lost beside a truncated site
// `.gz`, the floor comes from every source still on disk, and when the newest seq cannot be
// known the seq continues after the clock (ms since 1970) rather than repeat one.

const NOW = '2026-03-17T20:00:00.000Z';
const dayLine = (seq: number, day: string) => JSON.stringify({ seq, ts: `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}T00:00:00.000Z`, type: 'a', data: seq, meta: {} });
const dayLines = (day: string, from: number, to: number) => Buffer.from(Array.from({ length: to - from + 1 }, (_, i) => `${dayLine(from + i, day)}\n`).join(''));
const NOW_MS = Date.parse(NOW);

// [name, the site files (and what is kept of .meridian/), the seq the next event gets, whether the log says the seq cannot be known]
const SEQ_ROWS: [string, () => Record<string, Buffer>, number, boolean][] = [
  ['a whole .gz', () => ({ 'site_20260301.ndjson.gz': Buffer.concat([encodeMember(dayLines('20260301', 1, 2)), encodeMember(dayLines('20260301', 3, 4))]) }), 5, false],
  ['a .gz truncated in its last member', () => {
    const b = encodeMember(dayLines('20260301', 3, 4));
    return { 'site_20260301.ndjson.gz': Buffer.concat([encodeMember(dayLines('20260301', 1, 2)), b.subarray(0, 30)]) };
  }, NOW_MS + 1, true],
  ['a .gz truncated to nothing readable', () => ({ 'site_20260301.ndjson.gz': encodeMember(dayLines('20260301', 1, 2)).subarray(0, 30) }), NOW_MS + 1, true],
  ['a truncated .gz and site-seq.json kept (seq 4)', () => ({
    'site_20260301.ndjson.gz': Buffer.concat([encodeMember(dayLines('20260301', 1, 2)), encodeMember(dayLines('20260301', 3, 4)).subarray(0, 30)]),
    '.meridian/site-seq.json': Buffer.from('{"site_seq":4}'),
  }), 5, false],
  ['a truncated .gz and a site-seq.json older than it (seq 1)', () => ({
    'site_20260301.ndjson.gz': Buffer.concat([encodeMember(dayLines('20260301', 1, 2)), encodeMember(dayLines('20260301', 3, 4)).subarray(0, 30)]),
    '.meridian/site-seq.json': Buffer.from('{"site_seq":1}'),
  }), NOW_MS + 1, true],
  ['a truncated .gz followed by a later day', () => ({
    'site_20260301.ndjson.gz': Buffer.concat([encodeMember(dayLines('20260301', 1, 2)), encodeMember(dayLines('20260301', 3, 4)).subarray(0, 30)]),
    'site_20260302.ndjson': dayLines('20260302', 5, 6),
  }), 7, false],
];

for (const [name, files, next, unknown] of SEQ_ROWS) {
  test(`.meridian/ lost beside ${name}: the site seq never goes back (the next seq: ${next})`, async () => {
    const siteDir = tempDir();
    for (const [file, bytes] of Object.entries(files())) {
      fs.mkdirSync(path.dirname(path.join(siteDir, file)), { recursive: true });
      fs.writeFileSync(path.join(siteDir, file), bytes);
    }
    const d = await startTestDaemon({ siteDir, clock: new ManualClock(NOW) });
    try {
      assert.is((await postEvent(d.url, { type: 'b', data: 1 })).json.seq, next);
      const said = d.logs.filter((l) => l.includes('seqs past its damage cannot be known'));
      assert.equal(said.map((l) => l.slice(25)), unknown ? [`WARN ${path.join(siteDir, 'site_20260301.ndjson.gz')} is damaged and holds the highest seq read ` +
        `(${name.includes('nothing') ? 0 : 2}): seqs past its damage cannot be known; the site seq continues after ${NOW_MS} (the clock in ms since 1970) so that no seq is given twice`] : []);
    } finally {
      await d.close();
    }
    // a restart keeps it: the seq goes on from what the new event's file holds
    const again = await startTestDaemon({ siteDir, clock: new ManualClock(NOW) });
    try {
      assert.is((await postEvent(again.url, { type: 'b', data: 2 })).json.seq, next + 1);
    } finally {
      await again.close();
      removeDir(siteDir);
    }
  });
}

test.run();
