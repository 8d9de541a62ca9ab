import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { cleanEnv, ROOT } from './daemon.js';
import { removeDir, tempDir } from './tmp.js';

// The bench run on tiny sizes (one round of one second) for the bench smoke tests: the phases
// named, each checked to have printed its line and its figures, and the correctness check to
// have found every event. The phases are split over two test files so each stays well inside
// the runner's deadline for one file on a crowded machine.

function runBench(out: string, only: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = ['scripts/bench.mjs', '--rounds', '1', '--seconds', '1', '--events', '5000', '--history', '5000',
    '--query-lines', '5000', '--forward-events', '2000', '--night-lines', '5000', '--fleet-units', '3', '--fleet-rate', '5', '--fleet-backlog', '5000', '--fleet-window', '1', '--only', only.join(','), '--out', out];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Run the bench's phases `only` on tiny sizes: exit 0, every report line, every phase's figures, no problem. Returns the figures. */
export async function benchSmoke(only: readonly string[], reportLines: readonly RegExp[], figureKeys: readonly string[]): Promise<Record<string, unknown>> {
  const out = tempDir('meridian-bench-smoke-');
  try {
    const { code, stdout, stderr } = await runBench(out, only);
    assert.is(code, 0, stderr.slice(-2000));
    const text = stdout + stderr;
    const lines = [...reportLines, /^correctness: every acknowledged event is on disk, seq contiguous, answers match the files$/m];
    for (const line of lines) assert.ok(line.test(text), `the report has no line ${line}:\n${text.slice(-3000)}`);
    const files = fs.readdirSync(out).filter((f) => f.endsWith('.json'));
    assert.is(files.length, 1);
    const results = JSON.parse(fs.readFileSync(path.join(out, files[0]!), 'utf8')) as { figures: Record<string, unknown>; problems: unknown[] };
    assert.equal(results.problems, []);
    for (const key of figureKeys) assert.ok(key in results.figures, `no figures for ${key}`);
    return results.figures;
  } finally {
    removeDir(out);
  }
}
