import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { ReadFs } from './read-fs.js';

// Data files are regular files. A directory, FIFO, socket or device found at a data file's
// path (made by hand, a restore gone wrong) is never read or written: opened without blocking
// (a FIFO with no writer would hold a thread of the pool forever, and the stop with it), then
// refused by its type before a byte is read.

// O_NONBLOCK: an open of a FIFO returns at once (for reading) or fails with ENXIO (for writing, no reader)
const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
/** The flags a data file is opened with for reading. */
export const READ_FLAGS = fs.constants.O_RDONLY | NONBLOCK;
/** The flags a data file is opened with for appending (created when missing). */
export const APPEND_FLAGS = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | NONBLOCK;
// a device a run file is linked to on purpose (/dev/full: a disk that is full) is opened; its size is 0 to a reader,
// and listings never name one (storedAs and the site day listing take regular files only)
const DEVICE = 'a device';
/** The code of the error for a path that holds something other than a regular file (a directory: `EISDIR`). */
export const NOT_REGULAR = 'ENOTREG';

/** What a non-regular file is, in words ('a directory', 'a FIFO', ...), or undefined for a regular file. */
export function notRegularKind(stat: fs.Stats): string | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return DEVICE;
  return 'not a regular file';
}

/** The error for `file` holding `kind` (code EISDIR for a directory, else ENOTREG); its message says what it is. */
export function notRegularError(file: string, kind: string): NodeJS.ErrnoException {
  const code = kind === 'a directory' ? 'EISDIR' : NOT_REGULAR;
  return Object.assign(new Error(`${file} is ${kind}, not a regular file`), { code, kind });
}

/** Why a data file could not be opened, in words for a reason: `not a regular file (a FIFO)`, else its errno code. */
export function openFailure(error: unknown): string {
  const { kind, code, message } = error as NodeJS.ErrnoException & { kind?: string };
  return kind ? `not a regular file (${kind})` : code ?? message;
}

/** Open a data file with `flags` (default: for reading) without blocking; throws notRegularError for anything but a regular file. */
export function openRegularSync(file: string, io: Pick<ReadFs, 'openSync' | 'fstatSync' | 'closeSync'> = fs, flags = READ_FLAGS): number {
  let fd: number;
  try {
    fd = io.openSync(file, flags);
  } catch (error) {
    throw kindOfUnopened(file, error);
  }
  try {
    const kind = notRegularKind(io.fstatSync(fd));
    if (kind && kind !== DEVICE) throw notRegularError(file, kind);
    return fd;
  } catch (error) {
    io.closeSync(fd);
    throw error;
  }
}

/** openRegularSync for the asynchronous readers (queries, forwarders, compression). */
export async function openRegular(file: string, flags = READ_FLAGS): Promise<fsp.FileHandle> {
  const handle = await fsp.open(file, flags).catch((error: unknown) => { throw kindOfUnopened(file, error); });
  try {
    const kind = notRegularKind(await handle.stat());
    if (kind && kind !== DEVICE) throw notRegularError(file, kind);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Whether `file` is a regular file now (following links); false when it is not there. */
export function isRegularFile(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

// a socket (ENXIO, EOPNOTSUPP) or a FIFO with no reader (ENXIO, opened to append) is named by its type
function kindOfUnopened(file: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ENXIO' && code !== 'EOPNOTSUPP') return error;
  try {
    const kind = notRegularKind(fs.statSync(file));
    return kind ? notRegularError(file, kind) : error;
  } catch {
    return error;
  }
}
