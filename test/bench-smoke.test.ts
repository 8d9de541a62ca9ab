import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, ROOT } from './helpers/daemon.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// `npm run bench` is how every speed and memory target is checked, so it must run: every phase,
// start to end, on tiny sizes (one round of one second). Nothing here looks at a figure's size
// (the bench never fails on a missed target, and a test is never timed); it checks that each
// phase ran and printed its line, and that the correctness check found every event.
// (Its forwarding phase once crashed on a changed insert statement, unnoticed for a round.)

const PHASE_FIGURES = [
  'POST /event baseline c1', 'POST /event --fsync batch c16', 'GET /current c16 (1,000 types)', 'GET /current/{type} c16',
  'memory', 'startup', 'forward', 'batchIngest', 'metricsScrape', 'compression', 'history', 'historyGz', 'fanout', 'console', 'rules', 'night',
  'rollupQuery', 'rollupIngest',
];

const REPORT_LINES = [
  /^POST \/event --fsync batch c16 /m,
  /^peak RSS after \d+ events: /m,
  /^start-up with 5000 lines /m,
  /^ {2}postgres {2}2000 events: raw \d+\/s, sink \d+\/s = /m,
  /^ {2}mqtt {6}2000 events: raw \d+\/s, sink \d+\/s = /m,
  /^ {2}http {6}2000 events: raw \d+\/s, sink \d+\/s = /m,
  /^ {2}POST \/event c16 with postgres\+mqtt catching up: \d+ req\/s vs \d+ without = /m,
  /^history over compressed days \/ plain days, 5000 lines: /m,
  /^POST \/event c16 with 50 safety rules and 50 alarms: \d+ req\/s vs \d+ without \(medians\); rounds paired: \d+\.\d\dx \(target >= 0\.9x: (met|NOT met)\)/m,
  /^night report over 5000 lines \(\d+ MiB\): cold \d+ ms, warm \d+ ms \(target under 2000 ms\)$/m,
  /^rollups: one type, one year \(5000 readings; tiers built directly at \d+ lines\/s\), step=auto width 1000 -> 1h, 5000 buckets: p50 /m,
  /^rollups: POST \/events with rollups on \d+ events\/s, off \d+ events\/s = /m,
  /^correctness: every acknowledged event is on disk, seq contiguous, answers match the files$/m,
];

function runBench(out: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = ['scripts/bench.mjs', '--rounds', '1', '--seconds', '1', '--events', '5000', '--history', '5000',
    '--query-lines', '5000', '--forward-events', '2000', '--night-lines', '5000', '--out', out];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

test('npm run bench runs every phase to the end on tiny sizes and finds every acknowledged event', async () => {
  const out = tempDir('meridian-bench-smoke-');
  try {
    const { code, stdout, stderr } = await runBench(out);
    assert.is(code, 0, stderr.slice(-2000));
    const text = stdout + stderr;
    for (const line of REPORT_LINES) assert.ok(line.test(text), `the report has no line ${line}:\n${text.slice(-3000)}`);
    const files = fs.readdirSync(out).filter((f) => f.endsWith('.json'));
    assert.is(files.length, 1);
    const results = JSON.parse(fs.readFileSync(path.join(out, files[0]!), 'utf8')) as { figures: Record<string, unknown>; problems: unknown[] };
    assert.equal(results.problems, []);
    for (const key of PHASE_FIGURES) assert.ok(key in results.figures, `no figures for ${key}`);
    const forward = results.figures.forward as Record<string, { events: number; ratio: number }>;
    for (const kind of ['postgres', 'mqtt', 'http']) {
      assert.is(forward[kind]!.events, 2000);
      assert.ok(forward[kind]!.ratio > 0, `${kind} catch-up gave no figure`);
    }
  } finally {
    removeDir(out);
  }
});

test.run();
