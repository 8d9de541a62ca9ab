#!/usr/bin/env node
// The ceiling: a bare Node HTTP server on the same machine. POST /event parses the JSON
// body and answers a small envelope (no disk); POST /events parses an NDJSON batch, stamps
// each event and appends the envelope lines to FILE in one write (no sync); GET /current
// answers a precomputed body of 1,000 types of the daemon's shape (the envelopes, then each
// type's freshness, as the daemon answers by default: the same bytes to send, none of the
// work of computing ages); GET /current/<type> one precomputed envelope.
// Usage: baseline-server.mjs PORT [FILE]
import fs from 'node:fs';
import http from 'node:http';
import { weatherEvent } from './payload.mjs';

const port = Number(process.argv[2]);
const batchFd = process.argv[3] ? fs.openSync(process.argv[3], 'a') : undefined;
const now = Date.now();
const current = {};
for (let i = 0; i < 1000; i++) {
  const e = weatherEvent(i, 1000);
  current[`sensor-${String(i).padStart(4, '0')}`] = { seq: i + 1, ts: new Date(now).toISOString(), type: `sensor-${String(i).padStart(4, '0')}`, data: e.data, meta: e.meta };
}
const freshness = {};
for (const type of Object.keys(current)) freshness[type] = { age_s: 12.345, max_age_s: null, stale: false };
const currentBody = JSON.stringify({ current, freshness });
const oneBody = JSON.stringify(current['sensor-0042']);
let seq = 0;

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const server = http.createServer({ keepAliveTimeout: 5000 }, (req, res) => {
  if (req.method === 'POST' && req.url === '/events') {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const ts = new Date().toISOString();
      const first = seq + 1;
      const lines = [];
      for (const line of Buffer.concat(chunks).toString('utf8').split('\n')) {
        if (line === '') continue;
        const e = JSON.parse(line);
        seq += 1;
        lines.push(`${JSON.stringify({ seq, ts, type: e.type, data: e.data, meta: e.meta ?? {} })}\n`);
      }
      if (batchFd !== undefined) fs.writeSync(batchFd, lines.join(''));
      send(res, 200, JSON.stringify({ recorded: lines.length, first_seq: first, last_seq: seq, run_id: null }));
    });
  } else if (req.method === 'POST') {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        send(res, 400, '{"detail":"bad json","code":"MALFORMED_JSON"}');
        return;
      }
      seq += 1;
      send(res, 200, JSON.stringify({ seq, ts: new Date().toISOString(), type: body.type, data: body.data, meta: body.meta ?? {} }));
    });
  } else if (req.url === '/current') {
    send(res, 200, currentBody);
  } else if (req.url?.startsWith('/current/')) {
    send(res, 200, oneBody);
  } else {
    send(res, 200, '{"ready":true}');
  }
});
server.listen(port, '127.0.0.1', () => process.stderr.write(`baseline listening on ${port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
