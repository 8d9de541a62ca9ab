import { execFileSync } from 'node:child_process';
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

/** Write `file` until its file system is full (ENOSPC): 64 KiB, then 4 KiB, then single bytes. */
export function fillDisk(file: string): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const size of [65536, 4096, 1]) {
      const buf = Buffer.alloc(size, 0x78);
      for (;;) {
        try { fs.writeSync(fd, buf); } catch { break; }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Mount a tmpfs of `size` at `dir` (or change its size: `remount`); undefined when done, else why it could not be (needs root). */
export function mountTmpfsAt(dir: string, size: string, remount = false): string | undefined {
  try {
    execFileSync('mount', remount ? ['-o', `remount,size=${size}`, dir] : ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
}

/** Mount a tmpfs of `size` at a new directory; the directory, or why it could not be mounted. */
export function mountTmpfs(size: string): { dir: string } | { why: string } {
  const dir = tempDir('meridian-tmpfs-');
  const why = mountTmpfsAt(dir, size);
  if (why === undefined) return { dir };
  removeDir(dir);
  return { why };
}
