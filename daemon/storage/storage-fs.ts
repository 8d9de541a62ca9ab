import fs from 'node:fs';

// The file-system calls that write: node:fs in the daemon; a test hands the store a wrapper
// that fails or delays some of them (a full disk, a short write, a slow sync), the seam the
// failure tests inject through. Reads (scan, replay) use node:fs directly.

/** The writing calls of node:fs that the storage layer makes (event files and state files). */
export type StorageFs = Pick<typeof fs,
  'openSync' | 'writeSync' | 'fsyncSync' | 'fdatasync' | 'fdatasyncSync' | 'ftruncateSync' | 'truncateSync'
  | 'fstatSync' | 'closeSync' | 'renameSync' | 'rmSync' | 'rmdirSync' | 'mkdirSync' | 'statSync'>;

/** The real file system. */
export const nodeFs: StorageFs = fs;
