import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { spawnDaemon, startTestDaemon, type ChildDaemon, type TestDaemon } from './daemon.js';
import { removeDir, tempDir } from './tmp.js';

// One site directory lived in by real daemons (`meridian telemetry run` children) one after
// another on one port: start one, stop it cleanly or kill -9 it, start the next on what it left.

/** The daemons of one site directory, started in turn (see withRestarts). */
export interface Restarts {
  /** The site directory every daemon uses. */
  readonly dir: string;
  /** Start the next daemon, on the port of the one before; resolves once it listens. */
  start(): Promise<ChildDaemon>;
  /** SIGTERM the running daemon and assert that it exits 0. */
  stop(): Promise<void>;
  /** SIGKILL the running daemon and assert that it died of it. */
  kill9(): Promise<void>;
}

/**
 * Run `fn` with a fresh site directory for daemons started in turn. When `fn` returns, the
 * last daemon started (unless `fn` stopped or killed it) is stopped with `stop()`, so it must
 * exit 0; when `fn` threw, it is killed instead. The directory is removed either way.
 */
export async function withRestarts(fn: (site: Restarts) => Promise<void>): Promise<void> {
  const dir = tempDir();
  let current: ChildDaemon | undefined;
  let ended = false; // the current daemon was stopped or killed on purpose
  const site: Restarts = {
    dir,
    async start() {
      current = await spawnDaemon({ siteDir: dir, port: current?.port });
      ended = false;
      return current;
    },
    async stop() {
      ended = true;
      current!.child.kill('SIGTERM');
      assert.is(await current!.exited, 0);
    },
    async kill9() {
      ended = true;
      current!.child.kill('SIGKILL');
      assert.is(await current!.exited, 'SIGKILL');
    },
  };
  try {
    await fn(site);
    // the last daemon must still be there and stop cleanly (one that died by itself fails here)
    if (current && !ended) await site.stop();
  } finally {
    if (current && current.child.exitCode === null && current.child.signalCode === null) {
      current.child.kill('SIGKILL');
      await current.exited;
    }
    removeDir(dir);
  }
}

/** The two ways a daemon comes back: from its snapshot, and (snapshot deleted) replayed from the files. */
export type Comeback = 'kept' | 'deleted';

/**
 * Record with `record` on a first in-process daemon started with `opts`, then restart on what it
 * left twice, in turn: from its snapshot (`kept`), then with the snapshot deleted (`deleted`);
 * `check` runs on each restarted daemon. The site directory is removed at the end.
 */
export async function afterComebacks(
  opts: Parameters<typeof startTestDaemon>[0],
  record: (d: TestDaemon) => Promise<void>,
  check: (d: TestDaemon, snapshot: Comeback) => Promise<void>,
): Promise<void> {
  const first = await startTestDaemon(opts);
  try {
    await record(first);
  } finally {
    await first.close();
  }
  try {
    for (const snapshot of ['kept', 'deleted'] as const) {
      const file = path.join(first.siteDir, '.meridian', 'snapshot.json');
      if (snapshot === 'deleted') fs.rmSync(file);
      else assert.ok(fs.existsSync(file), 'a snapshot to start from');
      const again = await startTestDaemon({ ...opts, siteDir: first.siteDir });
      try {
        await check(again, snapshot);
      } finally {
        await again.close();
      }
    }
  } finally {
    removeDir(first.siteDir);
  }
}
