import { operatorName } from '../lib/operator-name.js';
import type { TelemetryClient } from '../client/client.js';
import { systemClock } from '../lib/time.js';
import type { ThemeName } from '../table/palette.js';
import { runConsole } from './console.js';
import { runFleetConsole, type FleetConsoleConfig } from './fleet-console.js';

// The live console's entry (docs/console.md): the CLI calls openConsole when
// `current [TYPE] --follow` runs on a terminal, openFleetConsole when `fleet --follow` does
// (docs/fleet.md).

/** What the CLI hands the console when `current [TYPE] --follow` runs on a terminal. */
export interface ConsoleOptions {
  client: TelemetryClient;
  /** The daemon address as shown in the header, e.g. `localhost:6562`. */
  address: string;
  /** Only this type (`current weather --follow`), shown large. */
  type?: string;
  /** Poll interval in ms (default 1000). */
  intervalMs: number;
  /** --max-age in ms: the limit of every type instead of the daemon's (undefined: the daemon's). */
  limitMs: number | undefined;
  /** `day` (default) or `night`. */
  theme: ThemeName;
  /** Monochrome (NO_COLOR). */
  noColor: boolean;
  /** Ring the terminal bell when an alarm is raised (`--bell`; default off). */
  bell?: boolean;
}

/** Open the full-screen console; resolves with the exit code once the operator quits. */
export async function openConsole(options: ConsoleOptions): Promise<number> {
  return runConsole({
    client: options.client, clock: systemClock, address: options.address, type: options.type,
    intervalMs: options.intervalMs > 0 ? options.intervalMs : 1000,
    limitMs: options.limitMs, theme: options.theme, noColor: options.noColor, user: userName(), bell: options.bell ?? false,
  });
}

/** The operator's name for acknowledgements: the CLI's rule (lib/operator-name.ts), `unknown` when none is known. */
function userName(): string {
  return operatorName(process.env) ?? 'unknown';
}

/** Open the fleet console (`telemetry fleet --follow` on a terminal); resolves with the exit code once the operator quits. */
export async function openFleetConsole(options: FleetConsoleConfig): Promise<number> {
  return runFleetConsole(options);
}
