import fs from 'node:fs';
import path from 'node:path';

// Creating directories one level at a time, and taking back the ones a failed step created.
// Shared by the store (site and run directories) and the launcher (the log's directory).

/** The calls it makes: node:fs, or the store's write seam. */
type DirectoryFs = Pick<typeof fs, 'statSync' | 'mkdirSync' | 'rmdirSync'>;

/**
 * Create `dir` and its missing parents; returns the directories created, outermost first
 * (none are left behind when it throws). One mkdir per level, so it always ends: Node 20's `mkdirSync(dir, {recursive: true})`
 * loops forever (at 100% CPU, deaf to signals) when a parent refuses new entries with
 * ENOENT, as `/proc` does.
 */
export function makeDirectory(dir: string, io: DirectoryFs = fs): string[] {
  const missing: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      io.statSync(at);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(at) === at) throw error;
    }
    missing.unshift(at);
  }
  const created: string[] = [];
  for (const at of missing) {
    try {
      io.mkdirSync(at);
      created.push(at);
    } catch (error) {
      // created meanwhile by someone else: fine, unless it is not a directory (the next level says so)
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        removeCreated(created, io);
        throw error;
      }
    }
  }
  return created;
}

/** Remove directories that `makeDirectory` created (innermost first), where they are still empty. */
export function removeCreated(created: readonly string[], io: DirectoryFs = fs): void {
  for (const dir of [...created].reverse()) {
    try {
      io.rmdirSync(dir);
    } catch {
      return; // something was put there meanwhile: it stays, and so do its parents
    }
  }
}
