import fs from 'node:fs';
import path from 'node:path';
import type { StorageFs } from '../../daemon/storage/storage-fs.js';

// The real file system with switches, handed to the store's write seam (StoreOptions.fs):
// fail chosen calls with an errno (a full disk, a read-only remount), cut writes short,
// hold fdatasync callbacks, and record what was called on which file.

/**
 * Which call on which file fails, and how: an errno code; for writes also `short` (each call
 * writes half of what it is given, the last byte fails with EFBIG: a disk filling up) or
 * `partial` (each call writes at most 8 bytes and succeeds).
 */
export type Fault = (call: 'write' | 'rename' | 'rm' | 'truncate', file: string) => string | undefined;

/** node:fs for the store, with faults injected and calls recorded as `<call> <file name>`. */
export class FaultyFs {
  readonly calls: string[] = [];
  fault: Fault | undefined;
  private readonly names = new Map<number, string>();
  private held: Array<() => void> | undefined;
  private waiters: Array<() => void> = [];
  readonly fs: StorageFs;

  constructor() {
    const faulty = this;
    const fail = (call: Parameters<Fault>[0], file: string) => {
      const code = faulty.fault?.(call, file);
      if (code && code !== 'short' && code !== 'partial') throw Object.assign(new Error(`${code}: injected, ${call} '${file}'`), { code });
      return code;
    };
    this.fs = {
      ...fs,
      openSync: ((file: string, flags: string) => {
        const fd = fs.openSync(file, flags);
        faulty.names.set(fd, path.basename(file));
        faulty.record(`open ${path.basename(file)}`);
        return fd;
      }) as typeof fs.openSync,
      writeSync: ((fd: number, buf: Buffer, offset: number, length: number, position?: number | null) => {
        const name = faulty.names.get(fd) ?? '?';
        try {
          const how = fail('write', name);
          if (how === 'partial') length = Math.min(length, 8);
          if (how === 'short') {
            if (length > 1) return fs.writeSync(fd, buf, offset, Math.floor(length / 2), position);
            throw Object.assign(new Error('EFBIG: injected, file too large'), { code: 'EFBIG' });
          }
        } catch (error) {
          faulty.record(`write-failed ${name}`);
          throw error;
        }
        faulty.record(`write ${name}`);
        return fs.writeSync(fd, buf, offset, length, position);
      }) as typeof fs.writeSync,
      fdatasync: ((fd: number, cb: (error: NodeJS.ErrnoException | null) => void) => {
        faulty.record(`fdatasync ${faulty.names.get(fd) ?? '?'}`);
        const run = () => fs.fdatasync(fd, cb);
        if (faulty.held) faulty.held.push(run); else run();
      }) as typeof fs.fdatasync,
      fdatasyncSync: ((fd: number) => {
        faulty.record(`fdatasyncSync ${faulty.names.get(fd) ?? '?'}`);
        fs.fdatasyncSync(fd);
      }) as typeof fs.fdatasyncSync,
      closeSync: ((fd: number) => {
        faulty.record(`close ${faulty.names.get(fd) ?? '?'}`);
        fs.closeSync(fd);
      }) as typeof fs.closeSync,
      renameSync: ((from: string, to: string) => {
        fail('rename', path.basename(to));
        fs.renameSync(from, to);
      }) as typeof fs.renameSync,
      rmSync: ((file: string, options?: fs.RmOptions) => {
        fail('rm', path.basename(file));
        fs.rmSync(file, options);
      }) as typeof fs.rmSync,
      truncateSync: ((file: string, len?: number) => {
        fail('truncate', path.basename(file));
        fs.truncateSync(file, len);
      }) as typeof fs.truncateSync,
    };
  }

  /** Hold every fdatasync from now on until releaseSyncs(). */
  holdSyncs(): void {
    this.held ??= [];
  }

  /** Run the held fdatasyncs and stop holding. */
  releaseSyncs(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const run of held) run();
  }

  /** How many recorded calls equal `call` (e.g. `write site_20260601.ndjson`). */
  count(call: string): number {
    return this.calls.filter((c) => c === call).length;
  }

  /** Resolve once `ok()` holds, checked after every recorded call; reject after `deadlineMs` with the calls so far. */
  async until(ok: () => boolean, deadlineMs = 10_000): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (!ok()) {
      let timer: NodeJS.Timeout | undefined;
      const woke = await new Promise<boolean>((resolve) => {
        this.waiters.push(() => resolve(true));
        timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
      });
      clearTimeout(timer);
      if (!woke && !ok()) throw new Error(`not reached in ${deadlineMs} ms; calls: ${this.calls.join(', ')}`);
    }
  }

  private record(call: string): void {
    this.calls.push(call);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
