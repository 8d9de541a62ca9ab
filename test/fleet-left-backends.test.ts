import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { backendOf, endLeft, type Backend } from '../daemon/forward/postgres-left.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

// The PostgreSQL sink ends the backends of connections it gave up on (a statement may still wait
// on a lock there). Against a real PostgreSQL 15: a backend is ended only when its pid AND its
// backend_start match; a pid PostgreSQL gave to another session of the same user since (the old
// backend exited) names that other session, which is left alone.

let server: TestPostgres;
test.before(async () => { server = await startPostgres(); });
test.after(() => server.remove());

async function session(): Promise<{ client: pg.Client; backend: Backend }> {
  const client = new pg.Client({ connectionString: server.url });
  client.on('error', () => undefined);
  await client.connect();
  return { client, backend: await backendOf(client) };
}

test('endLeft ends a left backend only when its pid and backend_start both match', async () => {
  const admin = await session();
  const gone = await session();
  const other = await session();
  try {
    const alive = async (pid: number) => (await admin.client.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0].n === 1;
    assert.is.not(gone.backend.start, other.backend.start);
    // the pid the sink kept now belongs to another session (started later): same pid, another start
    const rows: [string, Backend, boolean][] = [
      ['the pid reused by another session: left alone', { pid: other.backend.pid, start: gone.backend.start }, true],
      ['a pid that is no backend: nothing happens', { pid: 2_000_000_000, start: gone.backend.start }, true],
      ['the backend as it was: ended', other.backend, false],
    ];
    for (const [name, backend, stays] of rows) {
      const left = new Map([[backend.pid, backend]]);
      await endLeft(admin.client, left, 5000);
      assert.equal([left.size, await alive(other.backend.pid)], [0, stays], name);
    }
    assert.ok(await alive(gone.backend.pid), 'the other session of the same user was never touched');
  } finally {
    for (const s of [admin, gone, other]) await s.client.end().catch(() => undefined);
  }
});

test.run();
