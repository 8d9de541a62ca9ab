#!/usr/bin/env node
// N /stream subscribers (of every type, or of argv[4]) in one process (pinned by the caller): each parses its frames and
// records, per event, now - the envelope's ts (the daemon stamped it when recording). On
// SIGTERM prints one JSON line: events received, latency p50/p99 in ms.
import http from 'node:http';

const [url, count, type] = [process.argv[2], Number(process.argv[3]), process.argv[4]];
const latencies = [];
let live = 0;
for (let i = 0; i < count; i++) {
  http.get(`${url}/stream${type ? `?type=${encodeURIComponent(type)}` : ''}`, { agent: false }, (res) => {
    let carry = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      const now = Date.now();
      const text = carry + chunk;
      const cut = text.lastIndexOf('\n\n');
      carry = text.slice(cut + 2);
      for (const frame of text.slice(0, cut).split('\n\n')) {
        if (frame.includes('event:live')) {
          if (++live === count) process.stdout.write('LIVE\n');
        } else if (frame.startsWith('event:event')) {
          const ts = /"ts":"([^"]+)"/.exec(frame)?.[1];
          if (ts) latencies.push(now - Date.parse(ts));
        }
      }
    });
  });
}
process.on('SIGTERM', () => {
  const sorted = latencies.sort((a, b) => a - b);
  const pct = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  process.stdout.write(`${JSON.stringify({ events: sorted.length, p50: pct(50), p99: pct(99) })}\n`);
  process.exit(0);
});
