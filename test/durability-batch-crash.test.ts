import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { prng } from './helpers/prng.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A POST /events batch is every line or none across a crash: the daemon is killed (-9) while
// it writes a batch of 10,000 events, at a random byte of the write, to the site day file (even
// trials) or to an active run's file (odd ones); the next start holds all of the batch or none of it (docs/storage.md, "Batches across a crash"), and the client's
// retry then records it exactly once. MERIDIAN_BATCH_CRASH_SEED replays a run.

const EVENTS = 10_000;
const MAX_TRIALS = 10;
const WANTED_HITS = 3;
const SEED = Number(process.env.MERIDIAN_BATCH_CRASH_SEED ?? Date.now() % 1_000_000);
const ARGS = ['--max-body', String(64 * 1024 * 1024), '--fsync', 'off'];

/** The NDJSON body of trial `trial`: 10,000 events of ~2 KB (a write long enough to be killed in). */
function batchBody(trial: number): string {
  const pad = 'x'.repeat(2000);
  return Array.from({ length: EVENTS }, (_, i) => JSON.stringify({ type: `b${trial}`, data: { i, pad } })).join('\n');
}

/** Send the body; resolves once it is handed to the kernel (the daemon reads it), with the answer's promise. */
function sendBatch(url: string, body: string): Promise<{ answer: Promise<number> }> {
  return new Promise((resolve) => {
    const base = new URL(url);
    const answer = new Promise<number>((done) => {
      const req = http.request({ host: base.hostname, port: base.port, path: '/events', method: 'POST', agent: false,
        headers: { 'content-type': 'application/x-ndjson', 'content-length': String(Buffer.byteLength(body)) } },
      (res) => { res.resume(); res.on('end', () => done(res.statusCode ?? 0)); res.on('error', () => done(0)); });
      req.on('error', () => done(0));
      req.end(body, () => resolve({ answer }));
    });
  });
}

/** Busy-wait (bounded) until `file` is at least `bytes` long or `limit` ms passed; returns the size seen. */
function waitForSize(file: string, bytes: number, limit: number): number {
  const deadline = Date.now() + limit;
  let size = 0;
  while (Date.now() < deadline) {
    try { size = fs.statSync(file).size; } catch { size = 0; }
    if (size >= bytes) return size;
  }
  return size;
}

type Line = { seq: number; type: string; data: { i: number } };

/** The lines of `files`, parsed. */
function linesOf(files: string[]): Line[] {
  return files.flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line));
}

/** The site day files of `dir`, in order. */
function siteFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => /^site_\d{8}\.ndjson$/.test(n)).sort().map((n) => path.join(dir, n));
}

test(`kill -9 at a random byte of a ${EVENTS}-event batch: all of it or none on disk, the retry records it once (seed ${SEED})`, async () => {
  const dir = tempDir();
  const random = prng(SEED);
  let d: ChildDaemon | undefined;
  let hits = 0;
  const hitIn = new Set<string>();
  try {
    d = await spawnDaemon({ siteDir: dir, args: ARGS });
    for (let trial = 0; trial < MAX_TRIALS && (hits < WANTED_HITS || hitIn.size < 2); trial++) {
      const runId = trial % 2 === 1 ? `r${trial}` : undefined;
      if (runId) assert.is((await request(d.url, '/run/start', { body: { run_id: runId } })).status, 200);
      const before = await postEvent(d.url, { type: 'mark', data: trial });
      assert.is(before.status, 200);
      const file = runId ? path.join(dir, runId, 'telemetry.ndjson') : siteFiles(dir).at(-1)!;
      const streamLines = () => linesOf(runId ? [file] : siteFiles(dir));
      const start = fs.statSync(file).size;
      const body = batchBody(trial);
      const batchBytes = Buffer.byteLength(body) + EVENTS * 60; // about: each envelope adds seq, ts, meta
      const killAt = start + 1 + Math.floor(random() * (batchBytes - 1));
      const { answer } = await sendBatch(d.url, body);
      const seen = waitForSize(file, killAt, 10_000);
      d.child.kill('SIGKILL');
      assert.is(await d.exited, 'SIGKILL');
      const status = await answer;
      const wrote = fs.statSync(file).size - start;
      // the kill landed inside the write: part of the batch's lines were in the file
      const whole = fs.readFileSync(file).subarray(start).toString('utf8').split('\n').length - 1;
      if (wrote > 0 && whole < EVENTS) {
        hits++;
        hitIn.add(runId ? 'run' : 'site');
      }

      d = await spawnDaemon({ siteDir: dir, args: ARGS });
      assert.is((await request(d.url, '/run')).json?.run_id, runId, `trial ${trial}: the run is active again`);
      const mine = streamLines().filter((e) => e.type === `b${trial}`);
      const context = `trial ${trial} (seed ${SEED}): killed at byte ${seen - start} of the write (${wrote} bytes, ${whole} whole lines written), answer ${status}`;
      assert.ok(mine.length === 0 || mine.length === EVENTS, `${context}: ${mine.length} of ${EVENTS} events on disk`);
      if (status === 200) assert.is(mine.length, EVENTS, `${context}: an acknowledged batch is whole`);
      const all = streamLines();
      assert.equal(all.map((e) => e.seq), all.map((_, i) => i + 1), `${context}: ${runId ?? 'site'} seqs 1..N`);
      if (mine.length === 0) {
        // the client retries what was never acknowledged: recorded once, seqs right after the mark
        const retry = await request(d.url, '/events', { body: batchBody(trial), headers: { 'content-type': 'application/x-ndjson' } });
        assert.equal([retry.status, retry.json.first_seq, retry.json.last_seq], [200, before.json.seq + 1, before.json.seq + EVENTS], context);
        const after = streamLines().filter((e) => e.type === `b${trial}`);
        assert.equal(after.map((e) => e.data.i), Array.from({ length: EVENTS }, (_, i) => i), `${context}: the retry, once, in order`);
      }
      if (runId) assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
    }
    assert.equal([...hitIn].sort(), ['run', 'site'], `kills inside a batch's write in ${MAX_TRIALS} trials (seed ${SEED}): ${hits}`);
  } finally {
    if (d && d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
    removeDir(dir);
  }
});

test.run();
