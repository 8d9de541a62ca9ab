import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TelemetryClient } from '../client/client.js';
import { openConsole } from './main.js';

// Development entry for the console, independent of the CLI:
//   node dist/tui/run.js [--host H] [--port N] [--interval S] [--stale S] [--type T] [--no-color]
// Intervals are in seconds, like `telemetry current --follow --interval S`. See docs/console.md.

function seconds(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new TypeError(`--${name} must be a positive number of seconds; got ${JSON.stringify(value)}`);
  return Math.round(n * 1000);
}

/** Parse argv, open the console on this terminal, and resolve with the exit code. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' }, port: { type: 'string' }, interval: { type: 'string' }, stale: { type: 'string' },
      type: { type: 'string' }, 'no-color': { type: 'boolean' },
    },
  });
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write('the console needs a terminal (stdin and stdout)\n');
    return 2;
  }
  const client = new TelemetryClient({ host: values.host, port: values.port });
  return openConsole({
    client, address: new URL(client.baseUrl).host, type: values.type,
    intervalMs: seconds(values.interval, 'interval', 1000), staleMs: seconds(values.stale, 'stale', 120_000),
    noColor: values['no-color'] === true || (process.env.NO_COLOR ?? '') !== '',
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then((code) => { process.exitCode = code; }, (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  });
}
