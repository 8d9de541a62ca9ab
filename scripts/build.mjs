#!/usr/bin/env node
// npm run build: dist/ from scratch (a module moved or removed leaves no old build behind for
// an import to find), then the package's executables (package.json "bin") made executable
// again, as npm made them at install: tsc writes new files without the executable bit.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.json')],
  { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
const { bin } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
for (const file of Object.values(bin)) fs.chmodSync(path.join(root, file), 0o755);
