import fs from 'node:fs';
import type { ReadFs } from '../ndjson/read-fs.js';

// The file-system calls the storage layer makes, writes and the synchronous reads of
// start-up and the journal: node:fs in the daemon; a test hands the store a wrapper that
// fails or delays some of them (a full disk, a short write, a slow sync, an unreadable
// file), the seam the failure tests inject through. Queries read asynchronously
// (daemon/ndjson/reader.ts) and are not behind it.

/** The calls of node:fs that the storage layer makes (event files, state files, the journal). */
export type StorageFs = ReadFs & Pick<typeof fs,
  'openSync' | 'writeSync' | 'fsyncSync' | 'fdatasync' | 'fdatasyncSync' | 'ftruncateSync' | 'truncateSync'
  | 'fstatSync' | 'closeSync' | 'renameSync' | 'rmSync' | 'rmdirSync' | 'mkdirSync' | 'statSync'>;

/** The real file system. */
export const nodeFs: StorageFs = fs;
