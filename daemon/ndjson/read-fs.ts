import fs from 'node:fs';

// The reading calls of node:fs that the synchronous readers make (start-up, state files):
// node:fs in the daemon; a test hands a wrapper that fails some of them (the read side of
// the storage seam, daemon/storage/storage-fs.ts).

/** The reading calls of node:fs the synchronous readers make. */
export type ReadFs = Pick<typeof fs, 'openSync' | 'readSync' | 'fstatSync' | 'closeSync' | 'readFileSync'>;
