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
