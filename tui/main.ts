import type { TelemetryClient } from '../client/client.js';

// The live console's entry (contract section 7). Being built in issue 6.

/** What the CLI hands the console when `current [TYPE] --follow` runs on a terminal. */
export interface ConsoleOptions {
  client: TelemetryClient;
  /** The daemon address as shown in the header, e.g. `localhost:6562`. */
  address: string;
  /** Only this type (`current weather --follow`), shown large. */
  type?: string;
  /** Poll interval in ms (default 1000). */
  intervalMs: number;
  /** Age in ms after which a reading is marked stale (default 120000). */
  staleMs: number;
  /** Monochrome (NO_COLOR). */
  noColor: boolean;
}

/** Open the full-screen console; resolves with the exit code once the operator quits. */
export async function openConsole(_options: ConsoleOptions): Promise<number> {
  process.stderr.write('the live console is not built yet; pipe the output for JSON lines\n');
  return 2;
}
