import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';

// The request line and the Host header as RFC 9112 has them (finding 11): two Host headers
// and an HTTP/1.1 request without one are 400 INVALID_HOST with the JSON error body; an
// absolute-form target is served as its path, its authority judged like a Host header; a 401
// names its scheme. Raw bytes to the real daemon on a loopback port.

/** Write raw bytes, collect the answer until the daemon closes: status line, headers (lower-case names), body. */
function exchange(port: number, raw: string): Promise<{ status: string; headers: Map<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    let got = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    socket.on('data', (c) => { got += c.toString(); });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = got.split('\r\n\r\n');
      const [status = '', ...lines] = head.split('\r\n');
      const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status, headers, body: headers.get('transfer-encoding') === 'chunked' ? unchunk(body) : body });
    });
  });
}

function unchunk(body: string): string {
  let out = '';
  for (let rest = body; ;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!(size > 0)) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 4 + size);
  }
}

const ENVELOPE = '{"seq":1,"ts":"2026-03-17T20:00:00.000Z","type":"x0","data":1,"meta":{}}';
const invalidHost = (detail: string) => JSON.stringify({ detail, code: 'INVALID_HOST' });

// [name, request (PORT: the daemon's port), status line, body (ENVELOPE: the posted reading's answer)]
const ROWS: Array<[string, string, string, string]> = [
  ['two Host headers, ours first', 'GET /current/x0 HTTP/1.1\r\nHost: localhost\r\nHost: evil.com\r\n', 'HTTP/1.1 400 Bad Request',
    invalidHost('A request carries one Host header; this one has 2.')],
  ['two Host headers, the same', 'GET /health HTTP/1.1\r\nhost: localhost\r\nHOST: localhost\r\n', 'HTTP/1.1 400 Bad Request',
    invalidHost('A request carries one Host header; this one has 2.')],
  ['HTTP/1.1 without Host', 'GET /current/x0 HTTP/1.1\r\n', 'HTTP/1.1 400 Bad Request',
    invalidHost('An HTTP/1.1 request must carry a Host header.')],
  ['HTTP/1.0 without Host is served', 'GET /current/x0 HTTP/1.0\r\n', 'HTTP/1.1 200 OK', 'ENVELOPE'],
  ['absolute form, our authority', 'GET http://localhost:PORT/current/x0 HTTP/1.1\r\nHost: localhost:PORT\r\n', 'HTTP/1.1 200 OK', 'ENVELOPE'],
  ['absolute form, scheme in capitals, authority without port', 'GET HTTP://127.0.0.1/current/x0 HTTP/1.1\r\nHost: elsewhere\r\n', 'HTTP/1.1 200 OK', 'ENVELOPE'],
  ['absolute form, another authority (its Host ours)', 'GET http://evil.com:PORT/current/x0 HTTP/1.1\r\nHost: localhost:PORT\r\n',
    'HTTP/1.1 403 Forbidden', JSON.stringify({ detail: 'Host "evil.com:PORT" is not one of this daemon\'s names (--allowed-hosts adds names).', code: 'FORBIDDEN' })],
  ['absolute form, a user in the authority', 'GET http://u@localhost/current/x0 HTTP/1.1\r\nHost: localhost\r\n', 'HTTP/1.1 400 Bad Request',
    invalidHost('Host "u@localhost" is not a host name or address with an optional port.')],
];

for (const [name, raw, status, body] of ROWS) {
  test(`${name}: ${status.slice(9)}`, () => withTestDaemon({ env: { TZ: 'UTC' } }, async (d) => {
    const posted = await postEvent(d.url, { type: 'x0', data: 1, ts: '2026-03-17T20:00:00Z' });
    assert.is(posted.text, ENVELOPE);
    const answer = await exchange(d.port, `${raw.replaceAll('PORT', String(d.port))}Connection: close\r\n\r\n`);
    assert.equal([answer.status, answer.body], [status, body === 'ENVELOPE' ? ENVELOPE : body.replaceAll('PORT', String(d.port))]);
  }));
}

test('a 401 carries WWW-Authenticate: Bearer; a 403 for a wrong token and other answers do not', () => withTestDaemon({ flags: { token: 's3cret' } }, async (d) => {
  const none = await request(d.url, '/status');
  assert.equal([none.status, none.headers['www-authenticate'], none.json],
    [401, 'Bearer', { detail: 'This daemon needs a token: send Authorization: Bearer <token>.', code: 'UNAUTHORIZED' }]);
  const wrong = await request(d.url, '/status', { headers: { authorization: 'Bearer nope' } });
  assert.equal([wrong.status, wrong.headers['www-authenticate']], [403, undefined]);
  const right = await request(d.url, '/status', { headers: { authorization: 'Bearer s3cret' } });
  assert.equal([right.status, right.headers['www-authenticate']], [200, undefined]);
}));

test.run();
