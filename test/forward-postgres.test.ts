import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { caughtUp, failing, ndjson, QUICK, sinksOf } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

// The PostgreSQL sink against a real PostgreSQL 15 started by the test: rows keyed by
// (stream, seq), the current view, the database down for a while, a row it refuses.

let pg: TestPostgres;
test.before(async () => { pg = await startPostgres(); });
test.after(() => pg.remove());

const SINK = (table: string) => `[[sink]]\nname = "db"\nurl = "${pg.url}"\ntable = "${table}"\n${QUICK}`;

interface Row { stream: string; seq: string; ts: Date; type: string; data: unknown; meta: unknown }

const rowsOf = (table: string) => pg.query<Row>(`SELECT stream, seq, ts, type, data, meta FROM ${table} ORDER BY stream, seq`);

test('steady state: one row per event keyed by (stream, seq), data and meta as JSON, and the current view; no row for an ephemeral event', async () => {
  await withTestDaemon({ forward: sinksOf(SINK('steady')) }, async (d) => {
    const sent = [];
    for (let i = 1; i <= 70; i++) sent.push((await postEvent(d.url, { type: i % 2 ? 'weather' : 'dome', data: { i, t: -3.5 } })).json);
    assert.is((await postEvent(d.url, { type: 'wind', data: 4, store_permanently: false })).json.seq, 71);
    await request(d.url, '/run/start', { method: 'POST', body: { run_id: '007' } });
    for (let i = 1; i <= 5; i++) sent.push((await postEvent(d.url, { type: 'camera', data: [i], meta: { by: 'test' } })).json);
    await request(d.url, '/run/stop', { method: 'POST' });
    const status = await caughtUp(d.url, 'db');
    assert.equal([status.delivered, status.ephemeral_sent, status.ephemeral_dropped], [75, 0, 0]);
    const rows = await rowsOf('steady');
    assert.is(rows.length, 75);
    const streams = sent.map((_e, i) => (i < 70 ? 'site' : '007'));
    const expected = sent.map((e, i) => ({ stream: streams[i], seq: String(e.seq), ts: e.ts, type: e.type, data: e.data, meta: e.meta }));
    const got = rows.map((r) => ({ ...r, ts: r.ts.toISOString() }));
    expected.sort((a, b) => a.stream.localeCompare(b.stream) || Number(a.seq) - Number(b.seq));
    assert.equal(got, expected);
    const current = await pg.query<{ type: string; stream: string; seq: string }>('SELECT type, stream, seq FROM steady_current ORDER BY type');
    assert.equal(current, [{ type: 'camera', stream: '007', seq: '5' }, { type: 'dome', stream: 'site', seq: '70' }, { type: 'weather', stream: 'site', seq: '69' }]);
    const migrations = await pg.query<{ version: number }>('SELECT version FROM steady_migrations');
    assert.equal(migrations, [{ version: 1 }]);
  });
});

test('the database down for a while: the backlog drains once it is back, lag returns to 0, each row once', async () => {
  await withTestDaemon({ forward: sinksOf(SINK('outage')) }, async (d) => {
    for (let i = 1; i <= 20; i++) await postEvent(d.url, { type: 'weather', data: i });
    await caughtUp(d.url, 'db');
    pg.stop();
    try {
      for (let i = 21; i <= 220; i++) await postEvent(d.url, { type: 'weather', data: i });
      const down = await failing(d.url, 'db');
      assert.is(down.lag_events, 200);
    } finally {
      pg.start();
    }
    await caughtUp(d.url, 'db');
    const rows = await pg.query<{ n: string; low: string; high: string }>('SELECT count(*) AS n, min(seq) AS low, max(seq) AS high FROM outage');
    assert.equal(rows, [{ n: '220', low: '1', high: '220' }]);
  });
});

test('a row the database refuses (\\u0000 in jsonb) goes to the dead-letter file; the rest of its batch is inserted', async () => {
  await withTestDaemon({ forward: sinksOf(SINK('poison')) }, async (d) => {
    for (let i = 1; i <= 40; i++) await postEvent(d.url, { type: 'weather', data: i === 23 ? 'nul \u0000 here' : i });
    const status = await caughtUp(d.url, 'db');
    assert.is(status.dead_letters, 1);
    const seqs = (await pg.query<{ seq: string }>('SELECT seq FROM poison ORDER BY seq')).map((r) => Number(r.seq));
    assert.equal(seqs, Array.from({ length: 40 }, (_, i) => i + 1).filter((s) => s !== 23));
    const dead = ndjson(path.join(d.siteDir, '.meridian', 'forward', 'db.dead.ndjson'));
    assert.equal(dead.map((x) => [x.id, x.envelope.data, x.reason]), [
      ['site:23', 'nul \u0000 here', 'PostgreSQL refused the row: unsupported Unicode escape sequence (SQLSTATE 22P05)'],
    ]);
  });
});

test.run();
