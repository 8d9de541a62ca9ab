import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Many kill -9 trials on one site directory: each daemon is killed in the middle of a burst
// of concurrent single and batch posts, in the site or in a run (one run spans a crash), in
// every --fsync mode; the next one must hold every acknowledged event exactly as answered,
// seqs 1..N per stream with no gap or repeat, the newest reading of each type as current,
// and the run that was active. MERIDIAN_CRASH_TRIALS sets the number of trials (default 24).

const TRIALS = Number(process.env.MERIDIAN_CRASH_TRIALS ?? 24);
const MODES = ['batch', 'always', 'off'];
const WORKERS = 8;

type Env = { seq: number; ts: string; type: string; data: unknown; meta: Record<string, unknown> };

/** What the daemons acknowledged: per stream (`site` or a run id), seq -> the line answered. */
class Acked {
  readonly streams = new Map<string, Map<number, string>>();
  count = 0;

  add(stream: string, seq: number, line: string): void {
    const lines = this.streams.get(stream) ?? new Map<number, string>();
    this.streams.set(stream, lines);
    assert.not.ok(lines.has(seq), `seq ${seq} of ${stream} acknowledged twice`);
    lines.set(seq, line);
    this.count++;
  }
}

/** Every line of the site directory, per stream, from the site day files and the run files. */
function recorded(dir: string, runFiles: Map<string, string>): Map<string, string[]> {
  const streams = new Map<string, string[]>();
  const read = (file: string) => {
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(text === '' || text.endsWith('\n'), `${file} ends with a whole line`);
    return text.split('\n').filter(Boolean);
  };
  const site = fs.readdirSync(dir).filter((n) => /^site_\d{8}\.ndjson$/.test(n)).sort();
  streams.set('site', site.flatMap((n) => read(path.join(dir, n))));
  for (const [runId, file] of runFiles) streams.set(runId, read(file));
  return streams;
}

/** Post from WORKERS loops (half of them in batches of 5) until `killAt` events are acknowledged, then kill -9. */
async function burst(d: ChildDaemon, trial: number, stream: string, acked: Acked, killAt: number): Promise<void> {
  const target = acked.count + killAt;
  let killed = false;
  const kill = () => {
    if (killed || acked.count < target) return;
    killed = true;
    d.child.kill('SIGKILL');
  };
  const worker = async (w: number) => {
    for (let i = 0; !killed && i < 10_000; i++) {
      const type = `t${trial}-s${w % 4}`;
      try {
        if (w % 2 === 0) {
          const answer = await postEvent(d.url, { type, data: { w, i } });
          if (answer.status === 200) acked.add(stream, answer.json.seq, answer.text);
        } else {
          const events = Array.from({ length: 5 }, (_, k) => ({ type, data: { w, i, k } }));
          const answer = await request(d.url, '/events', { method: 'POST', body: events });
          if (answer.status === 200) {
            events.forEach((e, k) => acked.add(stream, answer.json.first_seq + k, JSON.stringify({ type: e.type, data: e.data })));
          }
        }
      } catch {
        return; // the daemon died under us: this request was never acknowledged
      }
      kill();
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  assert.ok(killed, `trial ${trial} reached its kill point`);
  assert.is(await d.exited, 'SIGKILL');
}

/** After a restart: every acknowledged event on disk as answered, seqs contiguous, the view the newest lines. */
async function check(d: ChildDaemon, dir: string, runFiles: Map<string, string>, acked: Acked, trial: number): Promise<void> {
  const streams = recorded(dir, runFiles);
  for (const [stream, lines] of streams) {
    const seqs = lines.map((l) => (JSON.parse(l) as Env).seq);
    assert.equal(seqs, seqs.map((_, i) => i + 1), `${stream}: seq 1..N with no gap or repeat (after trial ${trial})`);
  }
  for (const [stream, bySeq] of acked.streams) {
    const lines = streams.get(stream)!;
    for (const [seq, answered] of bySeq) {
      const line = lines[seq - 1];
      assert.ok(line !== undefined, `${stream} seq ${seq} acknowledged and on disk`);
      if (answered.startsWith('{"seq"')) assert.is(line, answered, `${stream} seq ${seq} as answered`);
      else {
        const env = JSON.parse(line!) as Env;
        assert.is(JSON.stringify({ type: env.type, data: env.data }), answered, `${stream} seq ${seq} of a batch as sent`);
      }
    }
  }
  const newest = new Map<string, string>();
  for (const lines of streams.values()) for (const line of lines) newest.set((JSON.parse(line) as Env).type, line);
  for (const [type, line] of newest) {
    if (!type.startsWith(`t${trial}-`)) continue; // each trial's types are its own: the newest line is in one stream
    assert.is((await request(d.url, `/current/${encodeURIComponent(type)}`)).text, line, `current ${type} after trial ${trial}`);
  }
}

test(`kill -9 in ${TRIALS} trials (site and runs, single and batch posts, every --fsync mode): no acknowledged event lost`, async () => {
  const dir = tempDir();
  const acked = new Acked();
  const runFiles = new Map<string, string>();
  let runId: string | undefined;
  let d: ChildDaemon | undefined;
  try {
    for (let trial = 0; trial <= TRIALS; trial++) {
      d = await spawnDaemon({ siteDir: dir, port: d?.port, args: ['--fsync', MODES[trial % MODES.length]!] });
      if (trial > 0) {
        await check(d, dir, runFiles, acked, trial - 1);
        assert.is((await request(d.url, '/run')).json?.run_id, runId, `the active run after trial ${trial - 1}`);
      }
      if (trial === TRIALS) break;
      const phase = trial % 4; // 0: site; 1: a run starts; 2: the run goes on after a crash; 3: it stops
      if (phase === 1) {
        const run = await request(d.url, '/run/start', { body: { run_id: `night-${trial}` } });
        assert.is(run.status, 200);
        runId = run.json.run_id as string;
        runFiles.set(runId, path.join(run.json.run_dir, 'telemetry.ndjson'));
      } else if (phase === 3) {
        assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
        runId = undefined;
      }
      await burst(d, trial, runId ?? 'site', acked, 60 + ((trial * 37) % 140));
    }
    d!.child.kill('SIGTERM');
    assert.is(await d!.exited, 0);
    assert.ok(acked.count >= TRIALS * 60, `acknowledged ${acked.count} events`);
  } finally {
    if (d && d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
    removeDir(dir);
  }
});

test.run();
