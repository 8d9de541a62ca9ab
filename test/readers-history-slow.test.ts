import fs from 'node:fs';
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';

// GET /history clients that read nothing: the page is read and written a slice at a time, so
// each holds about one slice of the daemon's memory, not its page (16 MiB, several times that
// while built). A reading client gets the same page, byte for byte, chunked.

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

test('20 clients that read nothing hold little memory; a reader gets the whole page exactly', async () => {
  const d = await spawnDaemon();
  const sockets: net.Socket[] = [];
  try {
    const pad = 'p'.repeat(300 * 1024);
    for (let i = 0; i < 50; i++) assert.is((await postEvent(d.url, { type: 'big', data: { i, pad } })).status, 200);
    const page = await request(d.url, '/history?limit=10000');
    assert.is(page.headers['transfer-encoding'], 'chunked');
    assert.equal([page.json.events.map((e: any) => [e.seq, e.data.i, e.data.pad.length]), page.json.next_cursor],
      [Array.from({ length: 50 }, (_, i) => [i + 1, i, pad.length]), null]);
    const before = rssOf(d.child.pid!);
    const started: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      const s = net.connect(d.port, '127.0.0.1');
      sockets.push(s);
      started.push(new Promise((resolve) => s.once('data', () => { s.pause(); resolve(); })));
      s.write(`GET /history?limit=10000 HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\n\r\n`);
    }
    await Promise.all(started);
    // what the daemon holds once every answer is under way (none read further)
    const grown = await waitFor('RSS to settle', async () => {
      const a = rssOf(d.child.pid!);
      await new Promise((r) => setTimeout(r, 300));
      const b = rssOf(d.child.pid!);
      return Math.abs(b - a) < 4 * 1024 * 1024 ? b - before : undefined;
    });
    // 20 pages held whole grew it by ~1 GiB; slices by 60-140 MiB (the heap V8 keeps after
    // building them differs between Node 20 and 22): the bound tells the two apart on each
    assert.ok(grown < 256 * 1024 * 1024, `the daemon grew by ${(grown / 1024 / 1024).toFixed(1)} MiB for 20 clients of 15 MiB pages`);
    assert.is((await request(d.url, '/history?limit=1')).json.events[0].seq, 1, 'and answers others');
  } finally {
    for (const s of sockets) s.destroy();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test.run();
