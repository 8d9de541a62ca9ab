import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import mqtt from 'mqtt';
import { freePort } from './daemon.js';
import { waitForPort } from './port-wait.js';
import { removeDir, tempDir } from './tmp.js';

/** A mosquitto broker run by the test on a loopback port (with persistence), stoppable and restartable. */
export interface TestBroker {
  port: number;
  url: string;
  /** Stop it (SIGTERM: it saves its persistence file) and wait for the exit. */
  stop(): Promise<void>;
  /** Start it again on the same port. */
  start(): Promise<void>;
  /** Stop it and remove its directory. */
  remove(): Promise<void>;
}

/** Start mosquitto with `listener PORT 127.0.0.1`, anonymous access and persistence in a temp dir. */
export async function startBroker(extraConfig: string[] = []): Promise<TestBroker> {
  const dir = tempDir('meridian-mosquitto-');
  const port = await freePort();
  const conf = path.join(dir, 'mosquitto.conf');
  const lines = [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence true', `persistence_location ${dir}/`,
    ...(process.getuid?.() === 0 ? ['user root'] : []), ...extraConfig];
  fs.writeFileSync(conf, `${lines.join('\n')}\n`);
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const start = async () => {
    const proc = spawn('mosquitto', ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    proc.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
    exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    child = proc;
    const died = exited.then(() => { throw new Error(`mosquitto exited at start:\n${err}`); });
    await Promise.race([waitForPort(port, 10_000, 'mosquitto'), died]);
  };
  const stop = async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    child = undefined;
  };
  await start();
  return { port, url: `mqtt://127.0.0.1:${port}`, stop, start, remove: async () => { await stop(); removeDir(dir); } };
}

/** One message a subscriber got. */
export interface Received {
  topic: string;
  payload: string;
  retain: boolean;
  stream: string | undefined;
  seq: number | undefined;
  /** The `ephemeral` user property (`true` on an ephemeral event). */
  ephemeral: string | undefined;
  /** The `unit` user property. */
  unit: string | undefined;
}

/** A subscriber with a persistent session (QoS 1): it gets what was published while it was away. */
export interface Subscriber {
  messages: Received[];
  close(): Promise<void>;
}

/** Subscribe to `filter` at QoS 1 with a persistent session that reconnects on its own. */
export async function subscribe(url: string, filter: string, clean = false): Promise<Subscriber> {
  const messages: Received[] = [];
  const client = await mqtt.connectAsync(url, {
    protocolVersion: 5, clean, clientId: `test-${randomBytes(4).toString('hex')}`, reconnectPeriod: 100,
    properties: { sessionExpiryInterval: 300 },
  });
  client.on('error', () => undefined);
  client.on('message', (topic, payload, packet) => {
    const props = (packet.properties?.userProperties ?? {}) as Record<string, string>;
    messages.push({ topic, payload: payload.toString(), retain: packet.retain, stream: props.stream, seq: props.seq === undefined ? undefined : Number(props.seq), ephemeral: props.ephemeral, unit: props.unit });
  });
  await client.subscribeAsync(filter, { qos: 1 });
  return { messages, close: async () => { await client.endAsync(true); } };
}
