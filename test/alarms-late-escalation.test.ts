import http from 'node:http';
import type net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { waitFor } from './helpers/forward.js';

// An escalation held back while the webhook is down, delivered after its alarm was acknowledged
// and cleared (hostile tester E, finding 7), says the alarm's state at delivery: the body's
// `state` and the text formats' words (docs/alarms.md "Escalation").

interface Attempt {
  key: string | undefined;
  status: number;
  /** The body parsed when it is JSON, else its text. */
  body: any;
  headers: http.IncomingHttpHeaders;
}

/** A webhook on a loopback port that answers each POST as `answer` says and keeps every attempt. */
async function startWebhook(answer: (n: number) => number) {
  const attempts: Attempt[] = [];
  const sockets = new Set<net.Socket>();
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = answer(attempts.length + 1);
      const key = req.headers['idempotency-key'];
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try { body = JSON.parse(text); } catch { /* a text body (ntfy) */ }
      attempts.push({ key: typeof key === 'string' ? key : undefined, status, body, headers: req.headers });
      res.writeHead(status).end();
      for (const w of waiters.splice(0)) w();
    });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  let port = 0;
  const up = () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => {
    port = (server.address() as net.AddressInfo).port;
    resolve();
  }));
  await up();
  return {
    url: () => `http://127.0.0.1:${port}/hook`,
    attempts,
    /** Resolve once an attempt satisfying `ok` has arrived. */
    async until(ok: (a: Attempt[]) => boolean): Promise<void> {
      while (!ok(attempts)) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    /** Stop listening for `ms` (connections refused), then listen on the same port again. */
    downFor(ms: number): Promise<void> {
      return new Promise((resolve) => {
        server.close(() => setTimeout(() => void up().then(resolve), ms));
        for (const s of sockets) s.destroy();
      });
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    }),
  };
}

const CONFIG = (hook: string, format: string) => `
[[alarm]]
id = "power"
severity = "critical"
when = "power.data.v < 200"
escalate_after = "1s"
message = "mains lost"

[[notify]]
url = "${hook}"
format = "${format}"
retry_min_ms = 50
retry_max_ms = 200
`;

for (const [format, says] of [['json', 'normal'], ['ntfy', 'back to normal since)']] as const) {
  test(`${format}: an escalation delivered after the alarm was acknowledged and cleared says so`, async () => {
    let up = false;
    const hook = await startWebhook(() => (up ? 200 : 503));
    try {
      await withTestDaemon({ config: CONFIG(hook.url(), format) }, async (d) => {
        await postEvent(d.url, { type: 'power', data: { v: 0 } });
        await hook.until((a) => a.length >= 1);
        assert.is((await request(d.url, '/alarms/power/ack', { method: 'POST', body: { by: 'ops' } })).status, 200);
        await postEvent(d.url, { type: 'power', data: { v: 300 } });
        await waitFor('power normal', async () => ((await request(d.url, '/alarms/power')).json.state === 'normal' ? true : undefined));
        up = true;
        await hook.until((a) => a.some((x) => x.status === 200));
        const delivered = hook.attempts.find((x) => x.status === 200)!;
        const first = hook.attempts[0]!;
        if (format === 'json') {
          assert.is(first.body.alarm.state, 'unack');
          assert.is(delivered.body.alarm.state, says);
        } else {
          assert.ok(String(first.body).includes('unacknowledged)'), String(first.body));
          assert.ok(String(delivered.body).includes(says), String(delivered.body));
        }
      });
    } finally {
      await hook.close();
    }
  });
}

test.run();
