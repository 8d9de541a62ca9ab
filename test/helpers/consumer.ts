import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cleanEnv, ROOT } from './daemon.js';
import { tempDir } from './tmp.js';

// A user's project in a folder of its own that installs this package by its path, compiles
// its TypeScript with the repository's tsc and runs the result: the package as others see it.

/** How a child program ended: its exit code (or signal), stdout and stderr. */
export interface Finished {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Run a program to its end; killed after `timeoutMs`. Never rejects: look at `code`. */
export function run(file: string, args: string[], opts: { cwd: string; env?: Record<string, string>; timeoutMs: number }): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: opts.cwd, env: { ...quietEnv(), ...opts.env }, timeout: opts.timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const code = error ? (error.signal ?? (typeof error.code === 'number' ? error.code : String(error.code))) : 0;
        resolve({ code, stdout, stderr });
      });
  });
}

/** A consumer project: its folder and what `npm install <repository>` said. */
export interface ConsumerProject {
  dir: string;
  install: Finished;
}

/**
 * Create a `"type": "module"` project in a fresh temp folder holding `sources` (file name ->
 * TypeScript), with a strict NodeNext tsconfig that emits to `out/`, and install this
 * package into it by its folder path. dist/ must be built before (npm test builds first):
 * the install skips scripts, so it never rebuilds dist/ under other running tests.
 * `checkDeclarations: false` sets `skipLibCheck`: the sources are still checked strictly
 * against the package's types, but the ~400 declaration files behind them (ours, got's,
 * execa's) are not checked again, which is most of tsc's time (~20 s of CPU here). Keep it
 * on in one test, the one that vouches for the declarations (client-consumer.test.ts).
 */
export async function createConsumerProject(sources: Record<string, string>, opts: { checkDeclarations?: boolean } = {}): Promise<ConsumerProject> {
  const dir = tempDir('meridian-consumer-');
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'meridian-consumer', private: true, type: 'module' }, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), `${JSON.stringify({
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmitOnError: true, outDir: 'out',
      skipLibCheck: opts.checkDeclarations === false,
      // the project's own @types/node, borrowed from the repository so that nothing is downloaded
      typeRoots: [path.join(ROOT, 'node_modules', '@types')], types: ['node'],
    },
    files: Object.keys(sources),
  }, null, 2)}\n`);
  for (const [name, text] of Object.entries(sources)) fs.writeFileSync(path.join(dir, name), text);
  const install = await run('npm', ['install', '--no-audit', '--no-fund', '--offline', '--ignore-scripts', ROOT], { cwd: dir, timeoutMs: 120_000 });
  return { dir, install };
}

/** Type-check and compile the project with the repository's TypeScript (emits to `out/`). */
export function compile(dir: string): Promise<Finished> {
  return run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { cwd: dir, timeoutMs: 120_000 });
}

// The environment without MERIDIAN_* variables, the npm_* ones `npm test` sets and the
// FORCE_COLOR of the test runner (console.log would colour numbers), like a plain shell.
function quietEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(cleanEnv()).filter(([k]) => !/^npm_/i.test(k) && k !== 'FORCE_COLOR'));
}
