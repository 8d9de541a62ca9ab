import { execFile } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Driving a server: autocannon in a child process pinned to the load CPU (or wrk when asked
// for and installed). Every run answers {ok, non2xx, errors, rps, p50, p99}.

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** `taskset -c CPU` prefix when taskset exists and the machine has more than one CPU. */
export function pinTo(cpu, cpus) {
  return cpus > 1 && hasTaskset() ? ['taskset', '-c', String(cpu)] : [];
}

function hasTaskset() {
  return ['/usr/bin/taskset', '/bin/taskset'].some((p) => existsSync(p));
}

/** Whether wrk is installed. */
export function hasWrk() {
  return ['/usr/bin/wrk', '/usr/local/bin/wrk'].some((p) => existsSync(p));
}

/**
 * Run one load: `job` = {url, path, connections, seconds, bodies?: string[], headers?}.
 * `pin` is the command prefix that pins the generator.
 */
export function runLoad(job, { pin = [], loader = 'autocannon' } = {}) {
  if (loader === 'wrk') return runWrk(job, pin);
  // a large job (batch bodies) goes through a file: argv has a size limit
  let text = JSON.stringify(job);
  let jobFile;
  if (text.length > 64 * 1024) {
    jobFile = path.join(os.tmpdir(), `meridian-load-${process.pid}-${Date.now()}.json`);
    writeFileSync(jobFile, text);
    text = `@${jobFile}`;
  }
  const argv = [...pin, process.execPath, path.join(HERE, 'load-worker.mjs'), text];
  return new Promise((resolve, reject) => {
    execFile(argv[0], argv.slice(1), { maxBuffer: 1 << 20, timeout: (job.seconds + 60) * 1000 }, (error, stdout, stderr) => {
      if (jobFile) rmSync(jobFile, { force: true });
      if (error) return reject(new Error(`load generator failed: ${error.message}\n${stderr}`));
      const result = JSON.parse(stdout.trim().split('\n').at(-1));
      if (result.error) return reject(new Error(result.error));
      // a round without one answer (a machine so loaded that none came within it) has no
      // latencies: JSON carried its NaN as null; the round is printed as such, not a crash
      resolve({ ...result, p50: result.p50 ?? NaN, p99: result.p99 ?? NaN });
    });
  });
}

const WRK_SCRIPT = path.join(HERE, 'wrk-script.lua');

function runWrk(job, pin) {
  const env = { ...process.env, BENCH_PATH: job.path, BENCH_BODIES: job.bodies ? job.bodies.join('\n') : '', BENCH_INM: job.headers?.['if-none-match'] ?? '' };
  const argv = [...pin, 'wrk', '-t1', `-c${job.connections}`, `-d${job.seconds}s`, '--latency', '-s', WRK_SCRIPT, job.url];
  return new Promise((resolve, reject) => {
    execFile(argv[0], argv.slice(1), { env, maxBuffer: 1 << 20, timeout: (job.seconds + 60) * 1000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`wrk failed: ${error.message}\n${stderr}`));
      const line = stdout.split('\n').find((l) => l.startsWith('BENCH_JSON '));
      if (!line) return reject(new Error(`wrk printed no result:\n${stdout}`));
      const r = JSON.parse(line.slice('BENCH_JSON '.length));
      resolve({ ...r, ok: r.requests - r.non2xx, rps: (r.requests - r.non2xx) / (r.micros / 1e6), p50: r.p50 / 1000, p99: r.p99 / 1000 });
    });
  });
}
