#!/usr/bin/env node
// Runs the uvu suite and ends with the plain line `N passed, N failed` (uvu prints only
// Total/Passed/Skipped), keeping uvu's exit code. Extra arguments narrow the files:
// `npm test -- daemon` runs test files whose name matches /daemon/.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const uvu = path.join(path.dirname(require.resolve('uvu')), '..', 'bin.js');
const filter = process.argv[2] ? `${process.argv[2]}.*\\.test\\.ts$` : '\\.test\\.ts$';
const child = spawn(process.execPath, [uvu, '-r', 'tsx', 'test', filter], { stdio: ['ignore', 'pipe', 'inherit'] });

let out = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  out += chunk.toString();
});
child.on('close', (code, signal) => {
  const plain = out.replace(/\u001b\[[0-9;]*m/g, '');
  const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? NaN);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  let exit = code ?? 1;
  if (Number.isNaN(total) || Number.isNaN(passed)) {
    process.stdout.write(`\nthe test run ended before its summary (exit ${code ?? signal})\n0 passed, 1 failed\n`);
    process.exit(exit || 1);
  }
  // uvu's Total counts the tests it ran (a skipped one is not in it)
  const failed = total - passed;
  if (failed > 0 && exit === 0) exit = 1;
  process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exit(exit);
});
