#!/usr/bin/env node
// One load run, in its own process (pinned away from the server by the caller). Reads a
// JSON job from argv[2] (or from the file `@path` names), prints one JSON result line: counts, req/s, p50/p99 in ms.
// Latencies are recorded here with sub-millisecond resolution (autocannon's own histogram
// has whole milliseconds).
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const arg = process.argv[2];
const job = JSON.parse(arg.startsWith('@') ? readFileSync(arg.slice(1), 'utf8') : arg);
const requests = job.bodies
  ? job.bodies.map((body) => ({ method: 'POST', path: job.path, body, headers: { 'content-type': job.contentType ?? 'application/json' } }))
  : [{ method: 'GET', path: job.path, headers: job.headers ?? {} }];

let lat = new Float64Array(1 << 16);
let n = 0;
const instance = autocannon({
  url: job.url, connections: job.connections, pipelining: 1, requests, timeout: 10,
  ...(job.amount ? { amount: job.amount } : { duration: job.seconds }),
  ...(job.rate ? { overallRate: job.rate } : {}),
}, (error, result) => {
  if (error) {
    process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
    process.exit(1);
  }
  const sorted = lat.subarray(0, n).sort();
  const pct = (p) => (n === 0 ? NaN : sorted[Math.min(n - 1, Math.floor((p / 100) * n))]);
  // a 304 is a good answer too (GET /current with If-None-Match)
  const ok = result['2xx'] + result['3xx'];
  process.stdout.write(`${JSON.stringify({
    ok, non2xx: result['1xx'] + result['4xx'] + result['5xx'], errors: result.errors, timeouts: result.timeouts,
    seconds: result.duration, rps: ok / result.duration, p50: pct(50), p99: pct(99),
    status: result.statusCodeStats,
  })}\n`);
});
instance.on('response', (_client, status, _bytes, ms) => {
  if (status < 200 || status > 399) return;
  if (n === lat.length) {
    const bigger = new Float64Array(lat.length * 2);
    bigger.set(lat);
    lat = bigger;
  }
  lat[n++] = ms;
});
