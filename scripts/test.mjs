#!/usr/bin/env node
// Runs the test files, each in its own uvu process, MERIDIAN_TEST_JOBS of them at a time
// (default: one per core, 2 to 4). Each file's output is printed whole when it ends (never
// interleaved with another's), and the run ends with the plain line `N passed, N failed`
// (`, N skipped` when some were); the exit code is 1 when any test failed or any file did not
// reach uvu's summary (an import error, an early exit, a crash). Extra arguments narrow the
// files: `npm test -- daemon` runs test files whose name matches /daemon/.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEST_DIR = path.join(ROOT, 'test');
const uvu = path.join(path.dirname(createRequire(import.meta.url).resolve('uvu')), '..', 'bin.js');
// how long each file took last time, so that the slow ones start first (git-ignored)
const TIMES_FILE = path.join(ROOT, '.cache', 'test-times.json');
const FILE_DEADLINE_MS = 10 * 60_000;
// files that need longer than FILE_DEADLINE_MS, each with its own deadline and why
const FILE_DEADLINES_MS = {
  // issue 27's acceptance at full scale: 50 daemons, PostgreSQL down 10 minutes, then the drain
  'fleet-outage-50.test.ts': 20 * 60_000,
};

const jobs = resolveJobs(process.env.MERIDIAN_TEST_JOBS);
const filter = new RegExp(process.argv[2] ? `(?:${process.argv[2]}).*\\.test\\.ts$` : '\\.test\\.ts$', 'i');
const files = fs.readdirSync(TEST_DIR, { recursive: true }).map(String)
  .filter((name) => !name.split(path.sep).includes('node_modules') && filter.test(name));
const lastTimes = readTimes();
// slowest first (by the last run; a file not timed yet counts as slow, the longer file first)
const size = (name) => fs.statSync(path.join(TEST_DIR, name)).size;
const queue = files.sort((a, b) => (lastTimes[b] ?? Infinity) - (lastTimes[a] ?? Infinity) || size(b) - size(a) || a.localeCompare(b));

const started = Date.now();
const results = [];
await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, async () => {
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const result = await runFile(name);
    results.push(result);
    process.stdout.write(report(result));
  }
}));

const sum = (key) => results.reduce((n, r) => n + r[key], 0);
const broken = results.filter((r) => r.failed > 0);
writeTimes(results);
process.stdout.write(`\n${results.length} file(s) in ${seconds(Date.now() - started)} with ${jobs} job(s)`
  + `${broken.length ? `; failed: ${broken.map((r) => r.name).join(', ')}` : ''}\n`);
if (results.length === 0) process.stdout.write(`no test file matches ${filter}\n`);
process.stdout.write(`${sum('passed')} passed, ${sum('failed')} failed${sum('skipped') ? `, ${sum('skipped')} skipped` : ''}\n`);
process.exit(broken.length > 0 || results.length === 0 ? 1 : 0);

/** MERIDIAN_TEST_JOBS, else the number of cores kept within 2..4. */
function resolveJobs(value) {
  if (value === undefined || value === '') return Math.min(4, Math.max(2, os.availableParallelism()));
  if (!/^[1-9]\d*$/.test(value)) {
    process.stderr.write(`MERIDIAN_TEST_JOBS must be a whole number of at least 1; got "${value}"\n`);
    process.exit(2);
  }
  return Number(value);
}

/** Run one file in its own uvu process; its output (stdout and stderr in order) and counts. */
function runFile(name) {
  const begun = Date.now();
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const child = spawn(process.execPath, [uvu, '-r', 'tsx', 'test', `^${escaped}$`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const timer = setTimeout(() => child.kill('SIGKILL'), FILE_DEADLINES_MS[name] ?? FILE_DEADLINE_MS);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ name, output, ms: Date.now() - begun, ...counts(output, code, signal) });
    });
  });
}

/** Passed/failed/skipped from uvu's summary; a file that ended without one, or with an error exit, counts one failure more. */
function counts(output, code, signal) {
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  const number = (label) => Number(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(plain)?.[1] ?? NaN);
  const [total, passed, skipped] = [number('Total'), number('Passed'), number('Skipped')];
  const ending = signal ? `was killed (${signal})` : `exited ${code}`;
  if (Number.isNaN(total) || Number.isNaN(passed)) {
    return { passed: 0, failed: 1, skipped: 0, note: `ended before uvu's summary: ${ending}` };
  }
  // uvu's Total counts the tests it ran (a skipped one is not in it)
  const failed = total - passed;
  const exitFailure = code !== 0 && failed === 0 ? 1 : 0;
  return { passed, failed: failed + exitFailure, skipped: skipped || 0, note: exitFailure ? `${ending} after its summary` : '' };
}

/** One file's block: a header line, then everything the file printed. */
function report(r) {
  const status = `${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ''}`;
  const body = r.output.endsWith('\n') || r.output === '' ? r.output : `${r.output}\n`;
  return `\n── test/${r.name}  ${status}  ${seconds(r.ms)}${r.note ? `  (${r.note})` : ''}\n${body}`;
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

function readTimes() {
  try {
    return JSON.parse(fs.readFileSync(TIMES_FILE, 'utf8'));
  } catch {
    return {};
  }
}

function writeTimes(done) {
  try {
    fs.mkdirSync(path.dirname(TIMES_FILE), { recursive: true });
    const times = { ...readTimes(), ...Object.fromEntries(done.map((r) => [r.name, r.ms])) };
    const kept = Object.entries(times).filter(([name]) => fs.existsSync(path.join(TEST_DIR, name)));
    fs.writeFileSync(TIMES_FILE, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`);
  } catch { /* only an ordering hint */ }
}
