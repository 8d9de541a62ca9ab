import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { alarmSite } from './helpers/alarm-config.js';
import { spawnDaemon, withTestDaemon, type ChildDaemon } from './helpers/daemon.js';
import { caughtUp, ndjson, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';
import { startWebhook } from './helpers/webhook.js';

// Hostile tester M's webhook findings (#24) against the real daemon and real loopback peers:
// a default name never holds the URL's path (the webhook's secret), a peer echoing one segment
// of the path has it hidden, a 200 with an endless body is delivered once (the body is never
// buffered), and the text bodies say since when and escape Slack's `<`, `>`, `&`.

const PATH = '/services/T0ABC/B0DEF/SECRETxyz123';
const ALARM = '[[alarm]]\nid = "power"\nseverity = "critical"\nwhen = "power.data.v < 200"\nescalate_after = "1s"\nmessage = "mains <lost> & gone"\n';
const hash = (url: string) => createHash('sha256').update(new URL(url).href).digest('hex').slice(0, 8);

test('default names: scheme, host, port and a hash of the URL, never its path; a segment echoed is hidden in the log and the dead letter', async () => {
  const hook = await startWebhook((_n, p) => [400, `token ${p.split('/').pop()} is not known`]);
  const url = hook.url().replace('/hook', PATH);
  const other = hook.url().replace('/hook', '/services/T0ABC/B0DEF/OTHERsecret99');
  const port = new URL(url).port;
  const { dir, site, args } = alarmSite(`${ALARM}\n[[notify]]\nurl = "${url}"\nretry_min_ms = 50\n\n[[notify]]\nurl = "${other}"\nformat = "slack"\n`);
  let d: ChildDaemon | undefined;
  try {
    d = await spawnDaemon({ siteDir: site, args });
    const names = [`notify-http-127.0.0.1-${port}-${hash(url)}`, `notify-http-127.0.0.1-${port}-${hash(other)}`];
    await postEvent(d.url, { type: 'power', data: { v: 0 } });
    await waitFor('the dead letters', async () => {
      const s = (await request(d!.url, '/status')).json.forward.find((f: { name: string }) => f.name === names[0]);
      const t = (await request(d!.url, '/status')).json.forward.find((f: { name: string }) => f.name === names[1]);
      return s?.dead_letters === 1 && t?.dead_letters === 1 ? true : undefined;
    });
    const status = (await request(d.url, '/status')).text;
    assert.equal(JSON.parse(status).forward.map((f: { name: string }) => f.name), names);
    const forwardDir = path.join(site, '.meridian', 'forward');
    const dead = fs.readFileSync(path.join(forwardDir, `${names[0]}.dead.ndjson`), 'utf8');
    assert.is(JSON.parse(dead.split('\n')[0]!).reason, 'HTTP 400: token *** is not known');
    const metrics = (await request(d.url, '/metrics')).text;
    for (const [where, text] of [['/status', status], ['/metrics', metrics], ['the log', d.stderr()], ['the dead letter', dead], ['file names', fs.readdirSync(forwardDir).join(' ')]]) {
      for (const secret of ['SECRETxyz123', 'OTHERsecret99', 'services', 'T0ABC']) assert.not.ok(text!.includes(secret), `${where} holds ${secret}: ${text}`);
    }
  } finally {
    d?.child.kill('SIGKILL');
    await d?.exited;
    await hook.close();
    removeDir(dir);
  }
});

// A peer answering each POST with `status` and a body that does not end (until the socket
// closes, at most 512 MB): the daemon must judge the answer by its status and stop reading.
async function endlessPeer(status: number) {
  let posts = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      posts += 1;
      res.writeHead(status, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(65_536, 'x');
      let sent = 0;
      const more = () => {
        while (sent < 512 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: (p: string) => `http://127.0.0.1:${(server.address() as net.AddressInfo).port}${p}`,
    posts: () => posts,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

test('a 200 with an endless body: the escalation and the HTTP sink\'s batch are delivered once', async () => {
  const peer = await endlessPeer(200);
  const config = `${ALARM}\n[[notify]]\nname = "hook"\nurl = "${peer.url('/hook')}"\ntimeout_ms = 2000\nretry_min_ms = 50\n\n` +
    `[[sink]]\nname = "central"\nurl = "${peer.url('/ingest')}"\ntimeout_ms = 2000\nretry_min_ms = 50\nlinger_ms = 0\n`;
  try {
    await withTestDaemon({ config }, async (d) => {
      await postEvent(d.url, { type: 'power', data: { v: 0 } });
      await waitFor('the escalation', async () => ((await request(d.url, '/history?type=meridian.escalation')).json.events.length === 1 ? true : undefined));
      const hook = await caughtUp(d.url, 'hook');
      const central = await caughtUp(d.url, 'central');
      assert.equal([hook.retries, hook.last_error, hook.dead_letters, central.retries, central.last_error], [0, null, 0, 0, null]);
    });
  } finally {
    await peer.close();
  }
});

test('a 200 whose body drips slower than the timeout: delivered once, never sent again (hostile tester O)', async () => {
  let posts = 0;
  const drips = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      posts += 1;
      res.writeHead(200, { 'content-type': 'text/plain' });
      // a byte every 300 ms, for ever (until the socket closes): the whole answer never comes within timeout_ms
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('x')), 300);
      drips.add(drip);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
  try {
    await withTestDaemon({ config: `${ALARM}\n[[notify]]\nname = "hook"\nurl = "${url}"\ntimeout_ms = 1000\nretry_min_ms = 50\n` }, async (d) => {
      await postEvent(d.url, { type: 'power', data: { v: 0 } });
      const escalation = await waitFor('the escalation', async () => {
        const events = (await request(d.url, '/history?type=meridian.escalation')).json.events;
        return events.length === 1 ? events : undefined;
      });
      const hook = await caughtUp(d.url, 'hook');
      // three timeouts' worth later, still the one POST
      await waitFor('three timeouts', async () => (Date.now() - Date.parse(escalation[0].ts) > 3000 ? true : undefined));
      assert.equal([escalation.length, hook.retries, hook.last_error, posts], [1, 0, null, 1]);
      assert.is((await request(d.url, '/status')).json.forward[0].retries, 0);
    });
  } finally {
    for (const drip of drips) clearInterval(drip);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a 400 with an endless body: one dead letter, its reason cut to 200 characters', async () => {
  const peer = await endlessPeer(400);
  try {
    await withTestDaemon({ config: `${ALARM}\n[[notify]]\nname = "hook"\nurl = "${peer.url('/hook')}"\ntimeout_ms = 2000\n` }, async (d) => {
      await postEvent(d.url, { type: 'power', data: { v: 0 } });
      const s = await waitFor('the dead letter', async () => {
        const f = (await request(d.url, '/status')).json.forward[0];
        return f.dead_letters === 1 ? f : undefined;
      });
      const dead = ndjson(path.join(d.siteDir, '.meridian', 'forward', 'hook.dead.ndjson'));
      assert.equal([dead.length, dead[0].reason, s.retries, peer.posts()], [1, `HTTP 400: ${'x'.repeat(200)}`, 0, 1]);
    });
  } finally {
    await peer.close();
  }
});

test('text bodies: slack escapes <, > and &; a handled alarm says since when', async () => {
  let up = false;
  const hooks = [await startWebhook(() => (up ? 200 : 503)), await startWebhook(() => (up ? 200 : 503))];
  const notify = ['slack', 'ntfy'].map((f, i) => `[[notify]]\nname = "${f}"\nurl = "${hooks[i]!.url()}"\nformat = "${f}"\nretry_min_ms = 50\nretry_max_ms = 200\n`).join('\n');
  try {
    await withTestDaemon({ config: `${ALARM}\n${notify}`, flags: { unitId: 'pan012' } }, async (d) => {
      await postEvent(d.url, { type: 'power', data: { v: 0 } });
      await Promise.all(hooks.map((h) => h.until((a) => a.length >= 1)));
      const acked = (await request(d.url, '/alarms/power/ack', { method: 'POST', body: { by: 'ops' } })).json;
      up = true;
      await Promise.all(hooks.map((h) => h.until((a) => a.some((x) => x.status === 200))));
      const e = (await request(d.url, '/history?type=meridian.escalation')).json.events[0];
      const key = `pan012/site:${e.seq}/${e.ts}`;
      const first = `CRITICAL alarm power on pan012: mains <lost> & gone (value 0, raised ${e.data.raised_at}, unacknowledged)`;
      const late = `CRITICAL alarm power on pan012: mains <lost> & gone (value 0, raised ${e.data.raised_at}, acknowledged since ${acked.since})`;
      const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      const [slack, ntfy] = hooks.map((h) => [h.attempts[0]!, h.attempts.find((x) => x.status === 200)!]);
      assert.equal([slack![0]!.body, slack![1]!.body], [{ text: esc(first), unit: 'pan012', idempotency_key: key }, { text: esc(late), unit: 'pan012', idempotency_key: key }]);
      assert.equal([ntfy![0]!.body, ntfy![1]!.body], [`${first}\nkey ${key}`, `${late}\nkey ${key}`]);
    });
  } finally {
    for (const h of hooks) await h.close();
  }
});

test.run();
