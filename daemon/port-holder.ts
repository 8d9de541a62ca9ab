import http from 'node:http';
import net from 'node:net';

// Before a start opens anything: is the port free, and if not, who holds it? The answer names
// another telemetry daemon (its pid and site directory, from its /status) or says it is another
// program, so that the operator knows what to stop.

const ASK_TIMEOUT_MS = 1000;

/** Undefined when `host:port` can be bound (it is released again at once), else why not, in words. */
export async function portInUse(host: string, port: number): Promise<string | undefined> {
  const free = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
  if (free?.code !== 'EADDRINUSE') return undefined; // other failures are the real listen's to report
  return `the port is already in use ${await holderOf(host, port)}`;
}

/** Who answers on `host:port`, as the end of a sentence ("by ..."). */
export async function holderOf(host: string, port: number): Promise<string> {
  const answer = await ask(host, port, '/status');
  if (answer === undefined) return 'by another program (it does not answer HTTP)';
  if (answer.status === 401) return 'by a telemetry daemon that asks for a token (stop it with --token)';
  const status = parse(answer.body);
  if (answer.status === 200 && typeof status?.pid === 'number' && typeof status.version === 'string') {
    const site = typeof status.site_dir === 'string' ? `, site ${status.site_dir}` : '';
    return `by another telemetry daemon (pid ${status.pid}${site}, version ${status.version}): ` +
      `stop it with \`meridian telemetry stop --port ${port}\`, or start this one with another --port`;
  }
  return `by another program (its HTTP answer to /status is not a telemetry daemon's: ${answer.status})`;
}

function ask(host: string, port: number, path: string): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path, timeout: ASK_TIMEOUT_MS, headers: { accept: 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { if (body.length < 65536) body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

function parse(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}
