#!/usr/bin/env node
// The HTTP sink's peer in the forwarding bench: counts NDJSON lines, answers 204. Its own
// process, so that neither the daemon nor the raw client shares a CPU thread with it.
import http from 'node:http';

let lines = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET') return res.end(String(lines));
  req.on('data', (c) => { for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) lines++; });
  req.on('end', () => res.writeHead(204).end());
});
server.listen(Number(process.argv[2]), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
