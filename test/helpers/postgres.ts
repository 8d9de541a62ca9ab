import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './daemon.js';
import { removeDir, tempDir } from './tmp.js';

// A PostgreSQL 15 cluster made by the test: initdb into a temp dir, pg_ctl start on a
// loopback port (as the postgres user when the tests run as root), stop and start again.

const BIN = '/usr/lib/postgresql/15/bin';

/** A database server run by the test. */
export interface TestPostgres {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  /** Run one query on a fresh connection; resolves the rows. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Fast shutdown (`pg_ctl -m fast stop`), waiting until it is down. */
  stop(): void;
  /** Start it again on the same port, waiting until it accepts connections. */
  start(): void;
  /** Stop it and remove its directory. */
  remove(): void;
}

/** initdb (trust authentication, user postgres) and start a cluster on a free loopback port. */
export async function startPostgres(): Promise<TestPostgres> {
  const dir = tempDir('meridian-pg-');
  const data = path.join(dir, 'data');
  const sockets = path.join(dir, 'sock');
  fs.mkdirSync(sockets);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['-R', 'postgres', dir]);
  const run = (cmd: string, args: string[]) => {
    if (!asRoot) return execFileSync(path.join(BIN, cmd), args, { stdio: 'pipe' });
    const line = [path.join(BIN, cmd), ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    return execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', line], { stdio: 'pipe' });
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  // pg_ctl -w waits until the server accepts connections (with its own deadline, -t seconds)
  const start = () => {
    run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '30',
      '-o', `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
    run('pg_isready', ['-h', '127.0.0.1', '-p', String(port), '-t', '10']);
  };
  const stop = () => { run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']); };
  start();
  return {
    port, url, start, stop,
    async query<T>(sql: string, params?: unknown[]) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as T[];
      } finally {
        await client.end();
      }
    },
    remove() {
      try { stop(); } catch { /* already stopped */ }
      removeDir(dir);
    },
  };
}
