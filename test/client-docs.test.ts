import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile, createConsumerProject, run } from './helpers/consumer.js';
import { freePort, ROOT, spawnDaemon } from './helpers/daemon.js';
import { readLines, removeDir } from './helpers/tmp.js';

// docs/client.md: its one ```ts block is a complete program. Installed into an empty
// folder, compiled strictly and run against a real daemon (a child, since it is shut down),
// it prints exactly the lines below, which are also the output the page shows.

const EXPECTED = [
  'ready: true, run active: false',
  'started run night-042 for {"observer":"ana","run_id":"night-042"}',
  'posted weather #1 and dome status #2 in run night-042',
  'current dome status: #2 {"shutter":"open"}',
  'current weather: #1 {"temp_c":-3.5,"wind_ms":4.2}',
  'dome status is {"shutter":"open"} as of #2',
  'no rain reading yet (404 NO_READING)',
  'stopped run night-042',
  'shutting down: true',
];

function blocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);
}

test('docs/client.md example: installed elsewhere, type-checks, drives a real daemon through the lifecycle and stops it', async () => {
  const markdown = fs.readFileSync(path.join(ROOT, 'docs', 'client.md'), 'utf8');
  const programs = blocks(markdown, 'ts');
  assert.is(programs.length, 1, 'exactly one ```ts block: the example');
  const shown = blocks(markdown, 'text').find((b) => b.startsWith('ready: '));
  assert.is(shown, `${EXPECTED.join('\n')}\n`, 'the output the page shows');

  // the package's own declarations are checked in client-consumer.test.ts: here the example against them
  const project = await createConsumerProject({ 'example.ts': programs[0]! }, { checkDeclarations: false });
  const daemon = await spawnDaemon();
  try {
    assert.is(project.install.code, 0, project.install.stderr);
    const compiled = await compile(project.dir);
    assert.equal([compiled.code, compiled.stdout, compiled.stderr], [0, '', '']);
    const example = (port: number) => run(process.execPath, ['out/example.js'], {
      cwd: project.dir, env: { MERIDIAN_TELEMETRY_HOST: '127.0.0.1', MERIDIAN_TELEMETRY_PORT: String(port) }, timeoutMs: 30_000,
    });

    // first where nothing listens: the page says it prints the connection error and exits 3
    const nowhere = await freePort();
    const refused = await example(nowhere);
    assert.equal([refused.code, refused.stdout], [3, '']);
    assert.is(refused.stderr, `no daemon: no telemetry daemon at http://127.0.0.1:${nowhere}: connection refused (ECONNREFUSED; GET /ready)\n`);

    const lifecycle = await example(daemon.port);
    assert.equal([lifecycle.code, lifecycle.stderr], [0, '']);
    assert.is(lifecycle.stdout, `${EXPECTED.join('\n')}\n`);

    assert.is(await daemon.exited, 0, 'the daemon exited cleanly after shutdown()');
    const runFile = readLines(path.join(daemon.siteDir, 'night-042', 'telemetry.ndjson')) as Array<{ seq: number; type: string }>;
    assert.equal(runFile.map((e) => [e.seq, e.type]), [[1, 'weather'], [2, 'dome status'], [3, 'dome status']]);
  } finally {
    daemon.child.kill();
    removeDir(project.dir);
    removeDir(daemon.siteDir);
  }
});

test.run();
