import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { caughtUp, failing, QUICK, sinksOf } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

// The PostgreSQL sink against a real PostgreSQL 15 started by the test: rows keyed by
// (unit, stream, seq), the current view, the database down for a while, a row it refuses
// (fleet-postgres.test.ts: the fleet's tables, fresh first, several units).

let pg: TestPostgres;
test.before(async () => { pg = await startPostgres(); });
test.after(() => pg.remove());

const SINK = (table: string) => `[[sink]]\nname = "db"\nurl = "${pg.url}"\ntable = "${table}"\n${QUICK}`;

interface Row { stream: string; seq: string; ts: Date; type: string; data: unknown; meta: unknown }

const rowsOf = (table: string) => pg.query<Row>(`SELECT stream, seq, ts, type, data, meta FROM ${table} ORDER BY stream, seq`);

test('steady state: one row per event keyed by (unit, stream, seq), data and meta as JSON, and the current view (an ephemeral reading too); no row for an ephemeral event', async () => {
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
    const current = await pg.query<{ unit: string; type: string; stream: string; seq: string }>('SELECT unit, type, stream, seq FROM steady_current ORDER BY type');
    assert.equal(current, [{ unit: 'localhost', type: 'camera', stream: '007', seq: '5' }, { unit: 'localhost', type: 'dome', stream: 'site', seq: '70' },
      { unit: 'localhost', type: 'weather', stream: 'site', seq: '69' }, { unit: 'localhost', type: 'wind', stream: 'site', seq: '71' }]);
    assert.equal(await pg.query('SELECT DISTINCT unit FROM steady'), [{ unit: 'localhost' }]);
    const migrations = await pg.query<{ version: number }>('SELECT version FROM steady_migrations');
    assert.equal(migrations, [{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
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

test('exact bytes: the line column holds each envelope as recorded, also what jsonb respells or refuses (NULL data and meta, no dead letter)', async () => {
  await withTestDaemon({ forward: sinksOf(SINK('exact')) }, async (d) => {
    // [data as sent, data as jsonb gives it back (null: SQL NULL, jsonb refused the line)]
    const rows: Array<[string, string | null]> = [
      ['-0.0', '0.0'],
      ['1e400', `1${'0'.repeat(400)}`],
      ['12345678901234567890', '12345678901234567890'],
      ['"\\ud800"', null],
      ['"nul \\u0000 here"', null],
      ['{"b":1.50,"a":[1E2]}', '{"a": [100], "b": 1.50}'],
    ];
    for (const [data] of rows) {
      const answer = await request(d.url, '/event', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"type":"x","data":${data},"meta":{"k":${data}}}` });
      assert.is(answer.status, 200, data);
    }
    const status = await caughtUp(d.url, 'db');
    assert.equal([status.delivered, status.dead_letters], [rows.length, 0]);
    const recorded = fs.readFileSync(path.join(d.siteDir, fs.readdirSync(d.siteDir).find((f) => /^site_\d{8}\.ndjson$/.test(f))!), 'utf8').split('\n').filter(Boolean);
    const got = await pg.query<{ line: string; data: string | null; meta: string | null }>('SELECT line, data::text AS data, meta::text AS meta FROM exact ORDER BY seq');
    assert.equal(got.map((r) => r.line), recorded, 'the line column: the bytes of the files');
    assert.equal(recorded.map((l) => l.slice(l.indexOf('"data":') + 7, l.indexOf(',"meta"'))), rows.map((r) => r[0]), 'data as sent');
    assert.equal(got.map((r) => [r.data, r.meta]), rows.map(([, j]) => [j, j === null ? null : `{"k": ${j}}`]));
    const current = await pg.query<{ line: string }>('SELECT line FROM exact_current');
    assert.equal(current.map((r) => r.line), [recorded[recorded.length - 1]]);
  });
});

test('a table made by migration 1 (no line column) is migrated in place: old rows kept, new rows carry their line', async () => {
  await pg.query(`CREATE TABLE older (stream text NOT NULL, seq bigint NOT NULL, ts timestamptz NOT NULL, type text NOT NULL, data jsonb,
    meta jsonb NOT NULL DEFAULT '{}', PRIMARY KEY (stream, seq));
    CREATE TABLE older_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
    INSERT INTO older_migrations (version) VALUES (1);
    INSERT INTO older VALUES ('old', 1, '2026-01-01T00:00:00Z', 'x', '1', '{}');`);
  await withTestDaemon({ forward: sinksOf(SINK('older')) }, async (d) => {
    await request(d.url, '/event', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"x","data":-0.0}' });
    await caughtUp(d.url, 'db');
    const got = await pg.query<{ stream: string; line: string | null; data: string }>('SELECT stream, line, data::text AS data FROM older ORDER BY stream');
    assert.equal(got.map((r) => [r.stream, r.line === null ? null : r.line.slice(r.line.indexOf('"data"')), r.data]), [['old', null, '1'], ['site', '"data":-0.0,"meta":{}}', '0.0']]);
    assert.equal(await pg.query('SELECT version FROM older_migrations ORDER BY version'), [{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
  });
});

test.run();
