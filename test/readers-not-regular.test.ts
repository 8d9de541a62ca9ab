import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A directory, a FIFO or a socket at a data file's path (hostile tester D, issue 23, findings N5
// and N6): never a 500, never a hang (a FIFO opened for reading waits for a writer), never a stop
// that does not end. A site day file that is no regular file is skipped; a run file the timeline
// names is named in /history's and /status's `damaged`; an active run's is suspended.

const NOW = '2026-03-17T20:00:00.000Z';
const line = (seq: number, day: string, runId?: string) => `${JSON.stringify({ seq, ts: `2026-03-${day}T13:00:00.000Z`, type: 'a', data: seq,
  meta: runId ? { run_id: runId } : {} })}\n`;
const lines = (from: number, to: number, day: string, runId?: string) => Array.from({ length: to - from + 1 }, (_, i) => line(from + i, day, runId)).join('');
const journal = (...records: object[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
const R1 = { run_id: 'r1', file: 'r1/telemetry.ndjson' };
const R1_STOPPED = journal({ event: 'run_start', at: '2026-03-15T14:00:00.000Z', ...R1, site_seq: 3, run_seq: 0 },
  { event: 'run_stop', at: '2026-03-15T15:00:00.000Z', ...R1, site_seq: 3, run_seq: 2 });
const R1_RECORD = { run_dir: 'r1', run_id: 'r1', meta: { run_id: 'r1' }, started_at: '2026-03-15T14:00:00.000Z' };

type Odd = 'directory' | 'FIFO' | 'socket';

/** Make `file` a directory, a FIFO or a socket (a socket by a bound listener, closed again: the inode stays). */
function makeOdd(file: string, odd: Odd): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (odd === 'directory') fs.mkdirSync(file);
  else if (odd === 'FIFO') execFileSync('mkfifo', [file]);
  else execFileSync('python3', ['-c', 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', file]);
}

/** A promise that fails after `ms` unless `p` settles: a hang is a failure, not a test run that never ends. */
function bounded<T>(what: string, p: Promise<T>, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms); });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const KINDS: Record<Odd, string> = { directory: 'a directory', FIFO: 'a FIFO', socket: 'a socket' };

// [the odd file's place, the files besides, the seqs /history serves, whether the run file is named damaged]
const PLACES: [string, string, Record<string, string>, string[], boolean][] = [
  ['a past site day file', 'site_20260316.ndjson', { 'site_20260315.ndjson': lines(1, 3, '15') }, ['site:1', 'site:2', 'site:3'], false],
  ['a stopped run\'s file', 'r1/telemetry.ndjson', {
    'site_20260315.ndjson': lines(1, 3, '15'), 'site_20260316.ndjson': lines(4, 5, '16'), '.meridian/timeline.ndjson': R1_STOPPED,
  }, ['site:1', 'site:2', 'site:3', 'site:4', 'site:5'], true],
];

for (const [place, name, files, served, named] of PLACES) {
  for (const odd of ['directory', 'FIFO', 'socket'] as const) {
    test(`${odd} at ${place}: /history, /stream, /status answer, the next event is recorded, the daemon stops`, async () => {
      const siteDir = tempDir();
      for (const [file, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(siteDir, file)), { recursive: true });
        fs.writeFileSync(path.join(siteDir, file), text);
      }
      const oddFile = path.join(siteDir, name);
      makeOdd(oddFile, odd);
      const d = await bounded('start-up', startTestDaemon({ siteDir, clock: new ManualClock(NOW) }));
      const damaged = named ? [{ file: oddFile, reason: `not a regular file (${KINDS[odd]}): its events are not served` }] : undefined;
      try {
        const history = await bounded('GET /history', request(d.url, '/history'));
        assert.is(history.status, 200, history.text);
        assert.equal([history.json.events.map((e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`), history.json.damaged], [served, damaged]);
        const stream = new SseReader(d.url, '/stream?since=site:0');
        try {
          await stream.live();
          assert.equal(stream.named('replay').map((f) => f.id), served.filter((s) => s.startsWith('site:')));
        } finally {
          stream.close();
        }
        const status = await bounded('GET /status', request(d.url, '/status'));
        assert.equal([status.status, status.json.damaged], [200, damaged]);
        assert.is((await postEvent(d.url, { type: 'b', data: 1 })).json.seq, Number(served.at(-1)!.slice(5)) + 1);
      } finally {
        await bounded('the stop', d.close());
        removeDir(siteDir);
      }
    });
  }
}

for (const odd of ['directory', 'FIFO'] as const) {
  test(`${odd} at today's site file while the daemon runs: posts 503, /history and /status answer, the daemon stops`, async () => {
    const d = await startTestDaemon({ clock: new ManualClock(NOW) });
    try {
      assert.is((await postEvent(d.url, { type: 'a', data: 1 })).json.seq, 1);
      const today = path.join(d.siteDir, fs.readdirSync(d.siteDir).find((f) => f.startsWith('site_'))!);
      fs.rmSync(today);
      makeOdd(today, odd);
      const posted = await bounded('POST /event', postEvent(d.url, { type: 'a', data: 2 }));
      assert.equal([posted.status, posted.json.code], [503, 'STORAGE_UNAVAILABLE']);
      const history = await bounded('GET /history', request(d.url, '/history'));
      assert.equal([history.status, history.json.events], [200, []]);
      assert.is((await bounded('GET /status', request(d.url, '/status'))).status, 200);
    } finally {
      await bounded('the stop', d.close());
      removeDir(d.siteDir);
    }
  });
}

for (const odd of ['directory', 'FIFO'] as const) {
  test(`${odd} at the active run's file at start-up: the daemon listens, the run is suspended, the daemon stops`, async () => {
    const siteDir = tempDir();
    fs.mkdirSync(path.join(siteDir, '.meridian'));
    fs.writeFileSync(path.join(siteDir, '.meridian', 'timeline.ndjson'), journal({ event: 'run_start', at: R1_RECORD.started_at, ...R1, site_seq: 0, run_seq: 0 }));
    fs.writeFileSync(path.join(siteDir, '.meridian', 'active-run.json'),
      JSON.stringify({ record: R1_RECORD, record_json: JSON.stringify(R1_RECORD), start_offset: 0, start_seq: 0 }));
    makeOdd(path.join(siteDir, 'r1', 'telemetry.ndjson'), odd);
    const d: TestDaemon = await bounded('start-up', startTestDaemon({ siteDir, clock: new ManualClock(NOW) }));
    try {
      assert.equal((await request(d.url, '/status')).json.suspended_run,
        { run_id: 'r1', run_dir: path.join(siteDir, 'r1'), reason: odd === 'directory' ? 'EISDIR' : 'ENOTREG' });
      assert.is((await bounded('GET /history', request(d.url, '/history'))).status, 200);
    } finally {
      await bounded('the stop', d.close());
      removeDir(siteDir);
    }
  });
}

test.run();
