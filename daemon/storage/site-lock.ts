import fs from 'node:fs';
import path from 'node:path';

// One daemon per site directory: `.meridian/daemon.lock` names the process that holds it and
// the directory it holds (its device and inode). A lock whose process is gone (kill -9, a power
// cut) is stale and taken over, and so is one copied with the site directory (`cp -a` while
// its daemon runs): its process holds another directory.

export const LOCK_FILE = 'daemon.lock';
const ATTEMPTS = 5;

/**
 * Who holds a lock: the pid, and (on Linux) the boot and the process's start time, so that
 * a pid reused after a reboot or by another program is not mistaken for the holder.
 */
interface Holder {
  pid: number;
  boot: string | null;
  started: string | null;
  /** The site directory held, as `<dev>:<ino>` (null in locks of earlier versions). */
  site?: string | null;
}

/** Another live process holds the site directory. */
export class SiteLockedError extends Error {
  readonly pid: number;

  constructor(siteDir: string, pid: number) {
    super(`site directory ${siteDir} is in use by another telemetry daemon (pid ${pid})`);
    this.name = 'SiteLockedError';
    this.pid = pid;
  }
}

/** The lock of one site directory, held from acquire() to release(). */
export class SiteLock {
  readonly file: string;
  private readonly text: string;
  /** The lock held open because its text could not be written (a full disk). */
  private readonly fd: number | undefined;
  /** Whether the lock was taken over from a daemon no longer running (it did not stop cleanly: a crash, kill -9). */
  readonly tookOver: boolean;

  private constructor(file: string, text: string, fd: number | undefined, tookOver: boolean) {
    this.file = file;
    this.text = text;
    this.fd = fd;
    this.tookOver = tookOver;
  }

  /**
   * Take the lock file in `stateDir`; a stale one is replaced (and reported through `warn`).
   * Throws SiteLockedError when a running process holds it, this one included (a second
   * store on the same directory in one process).
   */
  static acquire(stateDir: string, siteDir: string, warn: (message: string) => void): SiteLock {
    const file = path.join(stateDir, LOCK_FILE);
    const { pid, boot, started } = identify(process.pid);
    const site = siteIdentity(siteDir);
    const text = `${JSON.stringify({ pid, boot, started, site })}\n`;
    // the lock was taken over: its holder died (or it was copied with the directory while held), a crash as far as the state files tell
    let tookOver = false;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const created = create(file, text, warn);
      if (created !== false) return new SiteLock(file, created === true ? text : '', created === true ? undefined : created, tookOver);
      const seen = readText(file);
      if (seen === undefined) continue; // released meanwhile
      const holder = parseHolder(seen);
      // a lock copied with the site directory: its process holds the directory it was copied from
      const copied = holder?.site != null && site !== null && holder.site !== site;
      if (holder && !copied && isRunning(holder)) throw new SiteLockedError(siteDir, holder.pid);
      // an empty lock: a daemon that started on a full disk holds it open (or one died writing it)
      const opener = seen === '' ? holderOfOpenFile(file) : undefined;
      if (opener !== undefined) throw new SiteLockedError(siteDir, opener);
      if (takeOver(file, seen)) {
        tookOver = true;
        const why = !holder ? 'it was empty or unreadable'
          : copied ? `it was copied with the site directory (pid ${holder.pid} holds the directory it was copied from)` : `pid ${holder.pid} that held it is no longer running`;
        warn(`took over the lock ${file}: ${why}`);
      }
    }
    throw new Error(`could not take the lock ${file}: it kept changing`);
  }

  /** Remove the lock file, unless another daemon has taken it over meanwhile. */
  release(): void {
    if (readText(this.file) === this.text) fs.rmSync(this.file, { force: true });
    if (this.fd !== undefined) {
      try { fs.closeSync(this.fd); } catch { /* already gone */ }
    }
  }
}

/**
 * Create the lock file with `text` unless it exists (O_EXCL); false when it does. On a full
 * disk (no block for the text, ENOSPC/EDQUOT) the lock stays empty and open: another daemon
 * then finds its holder by the open file (holderOfOpenFile). Returns the open descriptor then.
 */
function create(file: string, text: string, warn: (message: string) => void): boolean | number {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    const buf = Buffer.from(text);
    for (let done = 0; done < buf.length;) done += fs.writeSync(fd, buf, done, buf.length - done);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      try { fs.ftruncateSync(fd, 0); } catch { /* a partial text reads as empty or unreadable: the same */ }
      warn(`the disk is full (${code}): the lock ${file} is held open without the pid in it`);
      return fd;
    }
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  return true;
}

/**
 * The pid of a live process that holds `file` open (an empty lock of a daemon started on a
 * full disk), found through /proc; undefined when none does or /proc cannot tell.
 */
function holderOfOpenFile(file: string): number | undefined {
  let target: fs.Stats;
  let pids: string[];
  try {
    target = fs.statSync(file);
    pids = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  // this process too: a second store on the same directory in one process is refused as well
  for (const pid of pids) {
    let fds: string[];
    try { fds = fs.readdirSync(`/proc/${pid}/fd`); } catch { continue; }
    for (const fd of fds) {
      try {
        const stat = fs.statSync(`/proc/${pid}/fd/${fd}`);
        if (stat.ino === target.ino && stat.dev === target.dev) return Number(pid);
      } catch { /* closed meanwhile */ }
    }
  }
  return undefined;
}

/**
 * Move a stale lock aside and drop it, if it is still the one judged stale (`seen`). When
 * another daemon replaced it in between, its lock is put back and false is returned.
 */
function takeOver(file: string, seen: string): boolean {
  const aside = `${file}.stale-${process.pid}`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const moved = readText(aside) ?? '';
  if (moved !== seen) {
    try { fs.writeFileSync(file, moved, { flag: 'wx' }); } catch { /* a third daemon has it now */ }
  }
  fs.rmSync(aside, { force: true });
  return moved === seen;
}

/** Whether process `pid` is running (not a zombie); this process counts as not (what it left was left before it started). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !identify(pid).zombie;
}

function isRunning(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = identify(holder.pid);
  if (now.started === null) return !now.zombie; // no /proc: the pid is all there is to go by
  if (now.zombie) return false; // killed, waiting for its parent to collect it
  return (holder.boot === null || holder.boot === now.boot) && (holder.started === null || holder.started === now.started);
}

/** A process's identity as far as this machine can tell (no /proc: the pid alone). */
function identify(pid: number): Holder & { zombie: boolean } {
  const boot = readText('/proc/sys/kernel/random/boot_id')?.trim() ?? null;
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return { pid, boot, started: null, zombie: false };
  // the fields after "pid (comm)": state is the first, starttime the 20th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, boot, started: fields[19] ?? null, zombie: fields[0] === 'Z' };
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (!Number.isSafeInteger(value.pid) || value.pid! <= 0) return undefined;
    const optional = (v: unknown) => (typeof v === 'string' ? v : null);
    return { pid: value.pid!, boot: optional(value.boot), started: optional(value.started), site: optional(value.site) };
  } catch {
    return undefined;
  }
}

// the site directory's identity: a copy is another directory, a move (same file system) the same
function siteIdentity(siteDir: string): string | null {
  try {
    const stat = fs.statSync(siteDir);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return null;
  }
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
