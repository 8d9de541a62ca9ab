import sade from 'sade';
import { VERSION } from '../lib/version.js';
import { runDaemonForeground } from '../daemon/main.js';

// The command line as one sentence per command. `prefix` is "telemetry " for the
// `meridian` executable and "" for `telemetry`.

/** Build the sade program for an executable name and command prefix. */
export function buildProgram(name: string, prefix: string, setExit: (code: number) => void) {
  const prog = sade(name).version(VERSION);

  prog.command(`${prefix}run`)
    .describe('Run the telemetry daemon in the foreground (logs to stderr; Ctrl-C or SIGTERM stops it).')
    .option('--host', 'Address to bind (env MERIDIAN_TELEMETRY_HOST; default localhost)')
    .option('--port', 'Port to listen on (env MERIDIAN_TELEMETRY_PORT; default 6562)')
    .option('--site-dir', 'Where telemetry files live (env MERIDIAN_TELEMETRY_SITE_DIR; default $XDG_DATA_HOME/meridian/telemetry)')
    .option('--token', 'Require this bearer token (env MERIDIAN_TELEMETRY_TOKEN)')
    .option('--fsync', 'Durability: always, batch or off (default batch)')
    .option('--max-body', 'Largest request body in bytes (default 1048576)')
    .option('--verbose', 'Debug logging: one line per incoming event')
    .option('--access-logs', 'Log one line per request')
    .example(`${prefix}run`)
    .example(`${prefix}run --port 7000 --site-dir /srv/telemetry --fsync always`)
    .action(async (opts: Record<string, unknown>) => {
      setExit(await runDaemonForeground({
        host: opts.host as string | undefined, port: opts.port as string | undefined,
        siteDir: opts['site-dir'] as string | undefined, token: opts.token as string | undefined,
        fsync: opts.fsync as string | undefined, maxBody: opts['max-body'] as string | undefined,
        verbose: opts.verbose === true, accessLogs: opts['access-logs'] === true,
      }));
    });

  return prog;
}
