import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveSinks } from '../daemon/forward/config.js';
import { redactUrl, scrubberOf } from '../daemon/forward/secrets.js';
import { cli } from './helpers/cli.js';
import { freePort, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { ndjson, QUICK, sinksOf, sinkStatus, startPeer, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { startBroker } from './helpers/mosquitto.js';
import { startPostgres } from './helpers/postgres.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Sink settings: every number bounded at start (a timer of 2^31 ms fires after 1 ms), header
// values that could smuggle headers refused, secrets never shown (status, metrics, logs,
// dead letters, errors), and an HTTP sink that never follows a redirect.

const F = (body: string) => ({ configText: `[[sink]]\n${body}`, configFile: 'f.toml' });

test('every number of every sink is bounded: the setting, the bound and the value in one line', () => {
  const rows: Array<[string, string, string]> = [
    ['linger_ms', 'url = "mqtt://b"\nlinger_ms = 2147483648', 'f.toml: sink 1 linger_ms must be a whole number from 0 to 60000; got 2147483648'],
    ['retry_min_ms', 'url = "mqtt://b"\nretry_min_ms = 2147483648', 'f.toml: sink 1 retry_min_ms must be a whole number from 1 to 3600000; got 2147483648'],
    ['retry_max_ms', 'url = "http://h"\nretry_max_ms = 4294967296', 'f.toml: sink 1 retry_max_ms must be a whole number from 250 to 3600000; got 4294967296'],
    ['retry_max below min', 'url = "http://h"\nretry_min_ms = 500\nretry_max_ms = 499', 'f.toml: sink 1 retry_max_ms must be a whole number from 500 to 3600000; got 499'],
    ['timeout_ms', 'url = "postgres://d/x"\ntimeout_ms = 2147483648', 'f.toml: sink 1 timeout_ms must be a whole number from 1 to 600000; got 2147483648'],
    ['timeout_ms 0', 'url = "postgres://d/x"\ntimeout_ms = 0', 'f.toml: sink 1 timeout_ms must be a whole number from 1 to 600000; got 0'],
    ['failing_after_s', 'url = "mqtt://b"\nfailing_after_s = 1e300', 'f.toml: sink 1 failing_after_s must be a number from 0 to 604800; got 1e+300'],
    ['failing_after_s inf', 'url = "mqtt://b"\nfailing_after_s = inf', 'f.toml: sink 1 failing_after_s must be a number from 0 to 604800; got Infinity'],
    ['failing_after_s nan', 'url = "mqtt://b"\nfailing_after_s = nan', 'f.toml: sink 1 failing_after_s must be a number from 0 to 604800; got NaN'],
    ['batch_bytes', 'url = "mqtt://b"\nbatch_bytes = 68719476736', 'f.toml: sink 1 batch_bytes must be a whole number from 1024 to 67108864; got 68719476736'],
    ['batch_records', 'url = "mqtt://b"\nbatch_records = 100001', 'f.toml: sink 1 batch_records must be a whole number from 1 to 100000; got 100001'],
    ['ephemeral_queue', 'url = "mqtt://b"\nephemeral_queue = 100001', 'f.toml: sink 1 ephemeral_queue must be a whole number from 1 to 100000; got 100001'],
    ['a fraction', 'url = "mqtt://b"\nlinger_ms = 1.5', 'f.toml: sink 1 linger_ms must be a whole number from 0 to 60000; got 1.5'],
    ['pg timeout in the URL', 'url = "postgres://d/x?query_timeout=99999999999"', 'f.toml: sink 1 url must be without the query parameter query_timeout (the URL may carry sslmode, sslcert, sslkey, sslrootcert, sslpassword, ssl, application_name, options, host, user, password, client_encoding, uselibpqcompat; timeouts are timeout_ms); got "postgres://d/x?query_timeout=99999999999"'],
    // sslmode as libpq defines it (docs/fleet.md), checked at start: pg would take an unknown one for verify-full
    ['an unknown sslmode', 'url = "postgres://d/x?sslmode=sometimes"', 'f.toml: sink 1 url sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full; got "sometimes"'],
    ['verify-ca without its CA', 'url = "postgres://d/x?sslmode=verify-ca"', 'f.toml: sink 1 url sslmode=verify-ca must be given with sslrootcert=<the CA file to verify the server against>; got "no sslrootcert"'],
  ];
  for (const [name, body, message] of rows) {
    assert.throws(() => resolveSinks(F(body), {}), (e: Error) => e.name === 'ConfigError' && e.message === message, name);
  }
  const top = resolveSinks(F('url = "http://h"\nlinger_ms = 60000\nretry_min_ms = 3600000\ntimeout_ms = 600000\nfailing_after_s = 604800\nbatch_bytes = 67108864'), {})[0]!;
  assert.equal([top.lingerMs, top.retry, top.timeoutMs, top.failingAfterMs, top.batchBytes],
    [60000, { minMs: 3600000, maxMs: 3600000 }, 600000, 604800000, 67108864], 'the bounds themselves are taken; retry_max follows a larger retry_min');
});

test('HTTP headers: CR/LF and other forbidden characters, bad names, framing headers, duplicates refused, values never quoted', () => {
  const env = { AUTH: 'Bearer abc\r\nX-Evil: 1', GOOD: 'Bearer fine' };
  const rows: Array<[string, string, string]> = [
    ['CR/LF from the environment', 'header_env = { Authorization = "AUTH" }', 'f.toml: sink 1 header_env.Authorization must be a header value without CR, LF or other control characters (the value of AUTH, not shown, holds U+000D); got "(not shown)"'],
    ['LF in the file', 'headers = { "X-Unit" = "a\\nb" }', 'f.toml: sink 1 headers.X-Unit must be a header value without CR, LF or other control characters (the value, not shown, holds U+000A); got "(not shown)"'],
    ['NUL', 'headers = { "X-Unit" = "a\\u0000" }', 'f.toml: sink 1 headers.X-Unit must be a header value without CR, LF or other control characters (the value, not shown, holds U+0000); got "(not shown)"'],
    ['beyond Latin-1', 'headers = { "X-Unit" = "\u2603" }', 'f.toml: sink 1 headers.X-Unit must be a header value without CR, LF or other control characters (the value, not shown, holds U+2603); got "(not shown)"'],
    ['bad name', 'headers = { "X Unit" = "1" }', 'f.toml: sink 1 headers.X Unit must be a header name of letters, digits and !#$%&\'*+-.^_`|~ only; got "X Unit"'],
    ['Host', 'headers = { Host = "elsewhere" }', 'f.toml: sink 1 headers.Host must be a header the sink does not set itself (not Host, Content-Length, Transfer-Encoding, Connection, ...); got "Host"'],
    ['Content-Length', 'headers = { "content-length" = "1" }', 'f.toml: sink 1 headers.content-length must be a header the sink does not set itself (not Host, Content-Length, Transfer-Encoding, Connection, ...); got "content-length"'],
    ['twice', 'headers = { authorization = "x" }\nheader_env = { Authorization = "GOOD" }', 'f.toml: sink 1 header_env.Authorization must be given once (headers and header_env name it twice, in any case); got "Authorization"'],
    ['not a string', 'headers = { "X-Unit" = 12345 }', 'f.toml: sink 1 headers.X-Unit must be a string; got "a number"'],
  ];
  for (const [name, body, message] of rows) {
    assert.throws(() => resolveSinks(F(`url = "http://h"\n${body}`), env), (e: Error) => e.name === 'ConfigError' && e.message === message, name);
  }
});

test('an empty value in headers is legal HTTP and sent; an unset or empty variable is refused with a message saying which', async () => {
  const rows: Array<[string, string, string]> = [
    ['header_env unset', 'url = "http://h"\nheader_env = { "X-A" = "NOPE" }', 'f.toml: sink 1 header_env.X-A must be the name of a set environment variable (NOPE is not set); got "NOPE"'],
    ['header_env empty', 'url = "http://h"\nheader_env = { "X-A" = "EMPTY" }', 'f.toml: sink 1 header_env.X-A must be the name of an environment variable holding the header value (EMPTY is set but empty); got "EMPTY"'],
    ['password_env empty', 'url = "mqtt://b"\npassword_env = "EMPTY"', 'f.toml: sink 1 password_env must be the name of an environment variable holding the password (EMPTY is set but empty); got "EMPTY"'],
  ];
  for (const [name, body, message] of rows) {
    assert.throws(() => resolveSinks(F(body), { EMPTY: '' }), (e: Error) => e.name === 'ConfigError' && e.message === message, name);
  }
  const peer = await startPeer();
  const d = await startTestDaemon({ forward: sinksOf(`[[sink]]\nname = "web"\nurl = "${peer.url}"\n${QUICK}\nheaders = { "X-A" = "", "X-B" = "b" }`) });
  try {
    await postEvent(d.url, { type: 'weather', data: 1 });
    await waitFor('the delivery', async () => ((await sinkStatus(d.url, 'web')).delivered === 1 ? true : undefined));
    assert.equal([peer.lastHeaders()?.['x-a'], peer.lastHeaders()?.['x-b']], ['', 'b']);
  } finally {
    await d.close();
    await peer.down();
    removeDir(d.siteDir);
  }
});

test('URLs in /status, logs and start errors: passwords, an http(s) user and secret query values as ***', () => {
  const rows: Array<[string, string]> = [
    ['postgres://unit1:s3cret@db.site/obs', 'postgres://unit1:***@db.site/obs'],
    ['postgres://unit1@db.site/obs?sslmode=require&password=s3cret', 'postgres://unit1@db.site/obs?sslmode=require&password=***'],
    ['mqtt://user:p%40ss@broker:1883', 'mqtt://user:***@broker:1883'],
    ['https://t0ken@example.org/in', 'https://***@example.org/in'],
    ['https://u:p@example.org/in?api_key=k&unit=1', 'https://***:***@example.org/in?api_key=***&unit=1'],
    ['http://[::1', 'http://[::1'],
    ['ftp://u:s3cret@x/', 'ftp://u:***@x/'],
  ];
  for (const [url, shown] of rows) assert.is(redactUrl(url), shown, url);
  assert.throws(() => resolveSinks({ forward: ['ftp://u:s3cret@x/'] }, {}),
    (e: Error) => e.message === '--forward url must be an mqtt://, mqtts://, postgres://, http:// or https:// URL; got "ftp://***@x/"');
});

test('telemetry run with an out-of-bound setting or a header with CR/LF: one line naming it, exit 2, no secret', async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'forward.toml');
    fs.writeFileSync(file, '[[sink]]\nurl = "http://127.0.0.1:9/in"\nretry_max_ms = 2147483648\n');
    const port = String(await freePort());
    const big = await cli(['run', '--port', port, '--site-dir', dir, '--config', file]);
    assert.equal([big.code, big.stdout, big.stderr], [2, '',
      `telemetry: ${file}: sink 1 retry_max_ms must be a whole number from 250 to 3600000; got 2147483648 (see "telemetry run --help")\n`]);
    fs.writeFileSync(file, '[[sink]]\nurl = "http://127.0.0.1:9/in"\nheader_env = { Authorization = "CLOUD_AUTH" }\n');
    const crlf = await cli(['run', '--port', port, '--site-dir', dir, '--config', file], { env: { CLOUD_AUTH: 'Bearer s3cret\r\nX-Evil: 1' } });
    assert.equal([crlf.code, crlf.stdout, crlf.stderr], [2, '',
      `telemetry: ${file}: sink 1 header_env.Authorization must be a header value without CR, LF or other control characters (the value of CLOUD_AUTH, not shown, holds U+000D); got "(not shown)" (see "telemetry run --help")\n`]);
  } finally {
    removeDir(dir);
  }
});

/** A loopback HTTP server answering every request with `answer`; counts requests. */
async function answering(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => answer(req, res));
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`, hits: () => hits,
    close: () => new Promise((resolve) => { server.close(() => resolve()); for (const s of sockets) s.destroy(); }),
  };
}

/** Everything the daemon shows: /status, /metrics and its log. */
async function shown(d: TestDaemon): Promise<string> {
  const status = await request(d.url, '/status');
  const metrics = await request(d.url, '/metrics');
  return `${status.text}\n${metrics.text}\n${d.logs.join('\n')}`;
}

test('an HTTP sink redirected (301/302/303/307/308): nothing and no secret goes to the other host, the failure says so', async () => {
  const peer = await startPeer();
  try {
    for (const code of [301, 302, 303, 307, 308]) await redirectedOnce(code, peer);
  } finally {
    await peer.down();
  }
});

async function redirectedOnce(code: number, peer: Awaited<ReturnType<typeof startPeer>>): Promise<void> {
  {
    const redirector = await answering((_req, res) => res.writeHead(code, { location: `${peer.url}?key=abc` }).end());
    const toml = `[[sink]]\nname = "web"\nurl = "${redirector.url}/in"\n${QUICK}\n[sink.header_env]\nAuthorization = "AUTH"`;
    const d = await startTestDaemon({ forward: sinksOf(toml, { AUTH: 'Bearer s3cretT0ken' }) });
    try {
      await postEvent(d.url, { type: 'weather', data: 1 });
      const status = await waitFor('two failed deliveries', async () => {
        const s = await sinkStatus(d.url, 'web');
        return s.retries >= 2 ? s : undefined;
      });
      assert.is(status.last_error, `HTTP ${code}: the peer redirected to ${peer.url}?key=***; redirects are not followed (set the sink's url to the final address)`, String(code));
      assert.equal([status.delivered, status.dead_letters, peer.lastHeaders(), peer.records.length], [0, 0, undefined, 0], String(code));
      assert.ok(redirector.hits() >= 2);
      assert.not.ok((await shown(d)).includes('s3cretT0ken'));
    } finally {
      await d.close();
      await redirector.close();
      removeDir(d.siteDir);
    }
  }
}

test('a peer echoing the secrets in its errors: not in /status, /metrics, logs or the dead-letter file', async () => {
  let status = 500;
  const echo = await answering((req, res) => res.writeHead(status).end(`bad request ${req.headers.authorization} ${req.headers['x-api-key']} ${req.url}`));
  const url = `${echo.url.replace('//', '//unit1:pa55word@')}/in?token=t0kenvalue`;
  const toml = `[[sink]]\nname = "web"\nurl = "${url}"\n${QUICK}\nheaders = { "X-Api-Key" = "inlineKey9" }\n[sink.header_env]\nAuthorization = "AUTH"`;
  const d = await startTestDaemon({ forward: sinksOf(toml, { AUTH: 'Bearer s3cretT0ken' }) });
  try {
    await postEvent(d.url, { type: 'weather', data: 1 });
    const retrying = await waitFor('a failed delivery', async () => {
      const s = await sinkStatus(d.url, 'web');
      return s.retries >= 1 ? s : undefined;
    });
    assert.is(retrying.url, `${echo.url.replace('//', '//***:***@')}/in?token=***`);
    assert.is(retrying.last_error, 'HTTP 500: bad request Basic *** *** /in?token=***', 'got sends the URL userinfo as Basic, over the configured Authorization');
    status = 400;
    const dead = await waitFor('a dead letter', async () => {
      const s = await sinkStatus(d.url, 'web');
      return s.dead_letters === 1 ? s : undefined;
    });
    assert.is(dead.dead_letters, 1);
    const letters = ndjson(path.join(d.siteDir, '.meridian', 'forward', 'web.dead.ndjson'));
    assert.is(letters[0].reason, 'HTTP 400: bad request Basic *** *** /in?token=***');
    const all = `${await shown(d)}\n${JSON.stringify(letters)}`;
    for (const secret of ['pa55word', 'unit1:', 's3cretT0ken', 'inlineKey9', 't0kenvalue', Buffer.from('unit1:pa55word').toString('base64')]) {
      assert.not.ok(all.includes(secret), secret);
    }
  } finally {
    await d.close();
    await echo.close();
    removeDir(d.siteDir);
  }
});

test('a peer echoing part of a secret, in any case or percent-encoded: every part hidden in /status, logs and dead letters', async () => {
  let status = 503;
  const echo = await answering((req, res) => {
    const auth = String(req.headers['x-api']);
    const token = auth.split(' ')[1]!;
    const sig = String(req.headers['x-sig']);
    const parts = sig.split(';').map((p) => p.split('=')[1]!);
    res.writeHead(status).end(`tokenpart=${token} lower=${token.toLowerCase()} upper=${auth.toUpperCase()} pct=${encodeURIComponent(parts[0]!).toLowerCase()} parts=${parts.join(',')} short=${sig.split('=')[0]}`);
  });
  const toml = `[[sink]]\nname = "web"\nurl = "${echo.url}/in"\n${QUICK}\nheaders = { "X-Sig" = "k1=alpha/1234;s=Beta5678" }\n[sink.header_env]\nX-Api = "CLOUD_AUTH"`;
  const d = await startTestDaemon({ forward: sinksOf(toml, { CLOUD_AUTH: 'Bearer TOPSECRETHDR' }) });
  const expected = 'tokenpart=*** lower=*** upper=*** pct=*** parts=***,*** short=k1';
  try {
    await postEvent(d.url, { type: 'weather', data: 1 });
    const retrying = await waitFor('a failed delivery', async () => {
      const s = await sinkStatus(d.url, 'web');
      return s.retries >= 1 ? s : undefined;
    });
    assert.is(retrying.last_error, `HTTP 503: ${expected}`);
    status = 400;
    await waitFor('a dead letter', async () => ((await sinkStatus(d.url, 'web')).dead_letters === 1 ? true : undefined));
    const letters = ndjson(path.join(d.siteDir, '.meridian', 'forward', 'web.dead.ndjson'));
    assert.is(letters[0].reason, `HTTP 400: ${expected}`);
    const all = `${await shown(d)}\n${JSON.stringify(letters)}`.toLowerCase();
    assert.ok(all.includes(`delivery failed (http 503: ${expected.toLowerCase()})`), 'the WARN line is scrubbed the same way');
    for (const secret of ['topsecrethdr', 'alpha/1234', 'alpha%2f1234', 'beta5678']) assert.not.ok(all.includes(secret), secret);
  } finally {
    await d.close();
    await echo.close();
    removeDir(d.siteDir);
  }
});

test('the scrubber: each part of a password or header value, its percent-encoded and Basic (base64) forms, in any case', () => {
  const pg = resolveSinks(F('url = "postgres://u@h/db"\npassword_env = "PW"'), { PW: 'open sesame;Z9=kEy4' })[0]!;
  const rows: Array<[string, string]> = [
    ['whole OPEN SESAME;z9=KEY4', 'whole ***'],
    ['part sesame and key4 and open%20sesame%3Bz9%3Dkey4', 'part *** and *** and ***'],
    ['z9 and ope stay', 'z9 and ope stay'],
  ];
  for (const [text, out] of rows) assert.is(scrubberOf(pg)(text), out, text);
  const quoted = resolveSinks(F('url = "postgres://u@h/db"\npassword_env = "PW"'), { PW: 'a"b\\c' })[0]!;
  assert.is(scrubberOf(quoted)(`raw a"b\\c json ${JSON.stringify({ p: 'a"b\\c' })}`), 'raw *** json {"p":"***"}');
  const basic = resolveSinks(F('url = "http://h/in"\nheaders = { Authorization = "Basic dW5pdDE6cGE1NXdvcmQ=" }'), {})[0]!;
  assert.is(scrubberOf(basic)('got basic DW5PDDE6CGE1NXDVCMQ= for unit1:pa55word then PA55WORD, basic stays'), 'got *** for *** then ***, basic stays');
});

test('real PostgreSQL and mosquitto: a password in the URL or from password_env never shows, whatever fails', async () => {
  const db = await startPostgres();
  const broker = await startBroker();
  const dbUrl = `postgres://postgres:pgPa55word@127.0.0.1:${db.port}/nodb`;
  const mqttUrl = `mqtt://unit:mqPa55word@127.0.0.1:${broker.port}`;
  const toml = `[[sink]]\nname = "db"\nurl = "${dbUrl}"\n${QUICK}\n[[sink]]\nname = "bus"\nurl = "${mqttUrl}"\n${QUICK}
[[sink]]\nname = "db2"\nurl = "postgres://postgres@127.0.0.1:${db.port}/nodb"\npassword_env = "PGPW"\n${QUICK}`;
  const d = await startTestDaemon({ forward: sinksOf(toml, { PGPW: 'envPa55word' }) });
  try {
    await postEvent(d.url, { type: 'weather', data: 1 });
    const pgFail = await waitFor('the database to refuse', async () => {
      const s = await sinkStatus(d.url, 'db');
      return s.retries >= 1 ? s : undefined;
    });
    assert.is(pgFail.url, `postgres://postgres:***@127.0.0.1:${db.port}/nodb`);
    assert.is(pgFail.last_error, 'database "nodb" does not exist (3D000)');
    await waitFor('the bus to deliver', async () => ((await sinkStatus(d.url, 'bus')).delivered === 1 ? true : undefined));
    await broker.stop();
    await postEvent(d.url, { type: 'weather', data: 2 });
    const mqFail = await waitFor('the bus to fail', async () => {
      const s = await sinkStatus(d.url, 'bus');
      return s.retries >= 1 ? s : undefined;
    });
    assert.is(mqFail.url, `mqtt://unit:***@127.0.0.1:${broker.port}`);
    assert.match(mqFail.last_error ?? '', /^(could not connect to mqtt:\/\/unit:\*\*\*@127\.0\.0\.1:\d+|the broker closed the connection)$/);
    await waitFor('db2 to fail', async () => ((await sinkStatus(d.url, 'db2')).retries >= 1 ? true : undefined));
    const all = await shown(d);
    for (const secret of ['pgPa55word', 'mqPa55word', 'envPa55word']) assert.not.ok(all.includes(secret), secret);
  } finally {
    await d.close();
    db.remove();
    await broker.remove();
    removeDir(d.siteDir);
  }
});

test.run();
