import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh empty directory under the system temp dir. */
export function tempDir(prefix = 'meridian-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Remove a directory tree (ignores one already gone). */
export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The lines of an NDJSON file, parsed. */
export function readLines(file: string): unknown[] {
  const text = fs.readFileSync(file, 'utf8');
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}
