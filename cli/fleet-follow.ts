import type { FleetUnit } from '../table/fleet-units.js';
import { say, show, type CliIo } from './io.js';

// `telemetry fleet --follow`: on a terminal the fleet console (tui/, loaded only then), piped
// or with --json one JSON line of the units per poll, until stopped. A failed poll is said on
// stderr once (and when the database answers again); the next poll tries again.

/** What following needs: one poll of the units, where it reads (password hidden), how often. */
export interface FleetFollow {
  poll(): Promise<readonly FleetUnit[]>;
  where: string;
  intervalMs: number;
  json: boolean;
}

/** Follow the fleet until the operator quits (console) or `io.stopSignal()` fires (lines); resolves 0. */
export async function followFleet(follow: FleetFollow, io: CliIo): Promise<number> {
  if (!follow.json && io.stdinIsTTY && io.stdoutIsTTY) {
    if (io.env.TERM !== 'dumb') {
      const { openFleetConsole } = await import('../tui/main.js');
      return openFleetConsole({ poll: follow.poll, where: follow.where, intervalMs: follow.intervalMs, noColor: !io.color });
    }
    say(io, 'TERM=dumb cannot draw the console; printing one JSON line of the units per poll instead');
  }
  return followLines(follow, io);
}

// one JSON line per poll; failures said once, and the recovery
async function followLines(follow: FleetFollow, io: CliIo): Promise<number> {
  const signal = io.stopSignal();
  let failed: string | undefined;
  while (!signal.aborted) {
    const started = performance.now();
    try {
      const units = await follow.poll();
      if (failed !== undefined) say(io, `the database at ${follow.where} answers again`);
      failed = undefined;
      if (!signal.aborted) show(io, `${JSON.stringify(units)}\n`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message !== failed) say(io, `${message}; retrying every ${follow.intervalMs / 1000} s`);
      failed = message;
    }
    await pause(Math.max(0, follow.intervalMs - (performance.now() - started)), signal);
  }
  return 0;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); resolve(); };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
