import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { cli } from './helpers/cli.js';
import { spawnDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import type { SinkStatus } from '../lib/wire.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { makeFleetTables } from './helpers/fleet-tables.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// `telemetry fleet` at its edges (hostile H, issue 27, finding 8): a table locked by another
// session is "no answer within --timeout" (exit 3) for every view; sslmode read as libpq
// defines it, never Node's multi-line SECURITY WARNING, a server without SSL named as such
// (exit 1); each span option's odd values answered with what it accepts.

let db: TestPostgres;
test.before(async () => {
  db = await startPostgres();
  await makeFleetTables(db.url, 'dome-a');
});
test.after(() => db.remove());

const shown = () => `postgres://***@127.0.0.1:${db.port}/postgres`;

test('a fleet table locked ACCESS EXCLUSIVE by another session: every view exits 3, "no answer within" the --timeout', async () => {
  const holder = new pg.Client({ connectionString: db.url });
  await holder.connect();
  try {
    await holder.query('BEGIN; LOCK TABLE fleet, fleet_units, fleet_current IN ACCESS EXCLUSIVE MODE');
    for (const view of [['fleet'], ['fleet', '--json'], ['fleet', 'coverage'], ['fleet', 'coverage', '--json']]) {
      const started = Date.now();
      const run = await cli([...view, '--db', db.url, '--table', 'fleet', '--timeout', '1']);
      assert.equal([run.code, run.stderr, run.stdout], [3,
        `telemetry: no answer within 1 s (--timeout) from the database at ${shown()}: the query waited (a lock held on the fleet's tables?)\n`, ''], view.join(' '));
      assert.ok(Date.now() - started < 10_000, `${view.join(' ')} gave up within its timeout`);
    }
    // the server ended the waiting queries itself: none is left in the lock's queue
    const waiting = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'meridian-fleet'`);
    assert.equal(waiting, [{ n: 0 }]);
  } finally {
    await holder.query('ROLLBACK');
    await holder.end();
  }
});

test('sslmode as libpq defines it: no SECURITY WARNING ever; a server without SSL named (exit 1); a bad or incomplete sslmode exit 2', async () => {
  const noSsl = (query: string) => `telemetry: the database at ${shown()}?${query} does not take SSL connections (its sslmode asks for SSL): connect with sslmode=disable, or turn ssl on in its postgresql.conf\n`;
  const rows: [string, number, string][] = [
    // [sslmode and its company, exit code, stderr]
    ['sslmode=require', 1, noSsl('sslmode=require')],
    ['sslmode=prefer', 1, noSsl('sslmode=prefer')],
    ['sslmode=verify-full', 1, noSsl('sslmode=verify-full')],
    ['sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem', 2,
      'telemetry: --db names an SSL file that cannot be read: ENOENT: no such file or directory, open \'/nonexistent/ca.pem\' (see "telemetry fleet --help")\n'],
    ['sslmode=verify-ca', 2,
      'telemetry: --db sslmode=verify-ca must be given with sslrootcert=<the CA file to verify the server against>; got "no sslrootcert" (see "telemetry fleet --help")\n'],
    ['sslmode=sometimes', 2,
      'telemetry: --db sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full; got "sometimes" (see "telemetry fleet --help")\n'],
    ['sslmode=allow', 0, ''],
    ['sslmode=disable', 0, ''],
  ];
  for (const [query, code, stderr] of rows) {
    const run = await cli(['fleet', '--db', `${db.url}?${query}`, '--table', 'fleet', '--silent-after', '3600']);
    assert.equal([run.code, run.stderr], [code, stderr], query);
    assert.is(run.stdout.split('\n')[0]!.split(/ +/)[0], code === 0 ? 'UNIT' : '', query);
  }
});

test('a daemon forwarding with ?sslmode=require to a server without SSL: its sink says why in /status, no SECURITY WARNING on its stderr', async () => {
  const d = await spawnDaemon({ args: ['--forward', `${db.url}?sslmode=require`, '--unit-id', 'ssl-unit'] });
  try {
    await postEvent(d.url, { type: 'weather', data: 1 });
    const sink = await waitFor('the sink\'s reason', async () => {
      const s = ((await request(d.url, '/status')).json.forward as SinkStatus[])[0]!;
      return s.last_error === null ? undefined : s;
    });
    assert.equal([sink.state, sink.last_error, sink.delivered], ['retrying', 'The server does not support SSL connections', 0]);
  } finally {
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
  assert.ok(!d.stderr().includes('SECURITY WARNING'), d.stderr());
  assert.ok(!d.stderr().includes('Warning'), d.stderr());
});

test('fleet\'s span options: each odd value says what is accepted (exit 2)', async () => {
  const at = ['--db', 'postgres://u@127.0.0.1:1/x'];
  // the examples within each option's own range: --silent-after takes no 0.5
  const said = (option: string, range: string, given: string) =>
    `telemetry: --${option} must be a number of seconds from ${range} (such as ${option === 'silent-after' ? '60' : '60 or 0.5'}); got "${given}" (see "telemetry fleet --help")\n`;
  const rows: [string[], string][] = [
    // [arguments, stderr]
    [['--silent-after', '1e-9'], said('silent-after', '20 to 2147483', '1e-9')],
    [['--silent-after', '0'], said('silent-after', '20 to 2147483', '0')],
    [['--silent-after', '-1'], said('silent-after', '20 to 2147483', '-1')],
    [['--silent-after', '10'], said('silent-after', '20 to 2147483', '10')],
    [['--silent-after', '5m'], said('silent-after', '20 to 2147483', '5m')],
    [['--silent-after', '1e3'], said('silent-after', '20 to 2147483', '1e3')],
    [['--silent-after', '99999999'], said('silent-after', '20 to 2147483', '99999999')],
    [['--timeout', '0'], said('timeout', '0.001 to 600', '0')],
    [['--timeout', '1e-9'], said('timeout', '0.001 to 600', '1e-9')],
    [['--timeout', '601'], said('timeout', '0.001 to 600', '601')],
    [['--follow', '--interval', '0.01'], said('interval', '0.1 to 3600', '0.01')],
    [['--follow', '--interval', 'NaN'], said('interval', '0.1 to 3600', 'NaN')],
    [['coverage', '--timeout', 'soon'], said('timeout', '0.001 to 600', 'soon')],
  ];
  for (const [args, stderr] of rows) {
    const run = await cli(['fleet', ...at, ...args]);
    assert.equal([run.code, run.stderr, run.stdout], [2, stderr, ''], args.join(' '));
  }
});

test('sslmode against a server with SSL (a self-signed certificate): require and prefer connect unverified, verify-ca checks the CA only, verify-full the name too', async () => {
  const dir = tempDir('meridian-ssl-');
  const [crt, key] = [path.join(dir, 'server.crt'), path.join(dir, 'server.key')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', crt, '-days', '2',
    '-subj', '/CN=meridian-test-db', '-addext', 'subjectAltName=DNS:meridian-test-db'], { stdio: 'pipe' });
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(key, 0o600);
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres', dir]);
  try {
    for (const sql of [`ALTER SYSTEM SET ssl_cert_file = '${crt}'`, `ALTER SYSTEM SET ssl_key_file = '${key}'`, 'ALTER SYSTEM SET ssl = on', 'SELECT pg_reload_conf()']) await db.query(sql);
    await waitFor('the server taking SSL', async () => {
      const c = new pg.Client({ connectionString: db.url, ssl: { rejectUnauthorized: false } });
      try {
        await c.connect();
        return true;
      } catch {
        return undefined;
      } finally {
        await c.end().catch(() => undefined);
      }
    });
    const refused = (query: string, why: string) => `telemetry: the database at ${shown()}?${query} was refused: its SSL certificate did not verify (${why})\n`;
    const rows: [string, number, string][] = [
      // [sslmode and its company, exit code, stderr]
      ['sslmode=require', 0, ''],
      ['sslmode=prefer', 0, ''],
      ['sslmode=disable', 0, ''],
      [`sslmode=verify-ca&sslrootcert=${crt}`, 0, ''],
      ['sslmode=verify-full', 1, refused('sslmode=verify-full', 'self-signed certificate; DEPTH_ZERO_SELF_SIGNED_CERT')],
      [`sslmode=verify-full&sslrootcert=${crt}`, 1, refused(`sslmode=verify-full&sslrootcert=${crt}`,
        'Hostname/IP does not match certificate\'s altnames: IP: 127.0.0.1 is not in the cert\'s list: ; ERR_TLS_CERT_ALTNAME_INVALID')],
    ];
    for (const [query, code, stderr] of rows) {
      const run = await cli(['fleet', '--db', `${db.url}?${query}`, '--table', 'fleet', '--silent-after', '3600']);
      assert.equal([run.code, run.stderr], [code, stderr], query);
    }
  } finally {
    for (const sql of ['ALTER SYSTEM RESET ssl', 'SELECT pg_reload_conf()']) await db.query(sql);
    removeDir(dir);
  }
});

test.run();
