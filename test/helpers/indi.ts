import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort } from './daemon.js';
import { removeDir, tempDir } from './tmp.js';

// Debian's indiserver (indi-bin) run by a test on an ephemeral loopback port, its drivers' HOME
// a fresh directory (no saved driver config from another run), read and set with the real
// indi_getprop and indi_setprop. Waits poll indi_getprop until a deadline, never sleep. Its local
// socket (abstract, /tmp/indiserver by default) is named by the port: another indiserver on the
// machine would hold the default one and this one would exit at once.

const run = promisify(execFile);

/** A running indiserver. */
export interface IndiServer {
  readonly port: number;
  /** One property element's value (`Device.PROPERTY.ELEMENT`), undefined while it is not defined. */
  get(element: string): Promise<string | undefined>;
  /** Set elements: `Device.PROPERTY.A;B=1;2`, as indi_setprop takes them. */
  set(...assignments: string[]): Promise<void>;
  /** Poll `element` until it reads `want`; resolves the wall time (ms) it was first seen so, rejects at the deadline. */
  waitFor(element: string, want: string, deadlineMs: number): Promise<number>;
  stop(): Promise<void>;
}

/** Start `indiserver -p PORT drivers...` and wait until each driver answers. */
export async function startIndi(drivers: readonly string[], devices: readonly string[]): Promise<IndiServer> {
  const home = tempDir('meridian-indi-');
  const port = await freePort();
  const child: ChildProcess = spawn('indiserver', ['-p', String(port), '-u', `/tmp/meridian-indiserver-${port}`, ...drivers], { env: { ...process.env, HOME: home }, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const get = async (element: string): Promise<string | undefined> => {
    try {
      const { stdout } = await run('indi_getprop', ['-p', String(port), '-t', '1', '-1', element]);
      return stdout.replace(/\n$/, '');
    } catch {
      return undefined;
    }
  };
  const server: IndiServer = {
    port,
    get,
    set: async (...assignments) => { await run('indi_setprop', ['-p', String(port), ...assignments]); },
    waitFor: async (element, want, deadlineMs) => {
      const deadline = Date.now() + deadlineMs;
      let last: string | undefined;
      while (Date.now() < deadline) {
        last = await get(element);
        if (last === want) return Date.now();
      }
      throw new Error(`${element} did not read ${want} within ${deadlineMs} ms (last: ${last ?? 'not defined'})`);
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      removeDir(home);
    },
  };
  try {
    for (const device of devices) await server.waitFor(`${device}.CONNECTION.CONNECT`, 'Off', 15_000);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
