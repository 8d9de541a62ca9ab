import fs from 'node:fs';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

// Has the daemon really gone? Its port refuses connections and, when it ran on this machine,
// its process has exited. Used by `stop` after /shutdown was answered.

/** Whether nothing accepts connections on host:port any more. */
export function portRefuses(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
    socket.setTimeout(1000);
    socket.once('connect', () => { socket.destroy(); resolve(false); });
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
    socket.once('error', () => resolve(true));
  });
}

/**
 * Whether process `pid` has exited: no such process, or a zombie (exited, waiting for its
 * parent or init to collect it; some inits take a second or two).
 */
export function processExited(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    // gone since kill(), unless there is no /proc at all (not Linux): then it is there
    return (error as NodeJS.ErrnoException).code === 'ENOENT' && fs.existsSync('/proc/self');
  }
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

/** Poll until the port refuses and (when `pid` is given) the process has exited; false at the deadline. */
export async function waitUntilExited(target: { host: string; port: number; pid: number | undefined },
  timeoutMs: number, now: () => number): Promise<boolean> {
  const deadline = now() + timeoutMs;
  for (;;) {
    if (await portRefuses(target.host, target.port) && (target.pid === undefined || processExited(target.pid))) return true;
    if (now() >= deadline) return false;
    await delay(Math.min(50, Math.max(1, deadline - now())));
  }
}
