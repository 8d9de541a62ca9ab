import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type net from 'node:net';
import { resolveSinks } from '../../daemon/forward/config.js';
import type { SinkSpec } from '../../daemon/forward/sink.js';
import type { SinkStatus } from '../../lib/wire.js';
import { request } from './http.js';

// Forwarding tests: sinks from TOML text (the real config path), waiting on /status, and
// the HTTP sink's peer: a real node:http server that keeps what it was sent.

/** Settings that make tests quick: small batches, short retry delays. */
export const QUICK = 'batch_records = 50\nlinger_ms = 20\nretry_min_ms = 20\nretry_max_ms = 200\ntimeout_ms = 3000\nfailing_after_s = 0.3';

/** The sinks of a TOML config text. */
export function sinksOf(toml: string, env: Record<string, string> = {}): SinkSpec[] {
  return resolveSinks({ configText: toml, configFile: 'test.toml' }, env);
}

/** Poll `probe` until it returns a value other than undefined; reject after `deadlineMs` with the last value seen. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, deadlineMs = 20_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The /status line of one sink. */
export async function sinkStatus(url: string, name: string): Promise<SinkStatus> {
  const answer = await request(url, '/status');
  const sink = (answer.json.forward as SinkStatus[]).find((s) => s.name === name);
  if (!sink) throw new Error(`no sink ${name} in /status: ${answer.text}`);
  return sink;
}

/** Wait until a sink has delivered everything (lag 0, state ok). */
export function caughtUp(url: string, name: string, deadlineMs?: number): Promise<SinkStatus> {
  return waitFor(`sink ${name} to catch up`, async () => {
    const s = await sinkStatus(url, name);
    return s.lag_events === 0 && s.state === 'ok' ? s : undefined;
  }, deadlineMs);
}

/** Wait until a sink's deliveries have been failing longer than its failing_after_s. */
export function failing(url: string, name: string): Promise<SinkStatus> {
  return waitFor(`sink ${name} to be failing`, async () => {
    const s = await sinkStatus(url, name);
    return s.state === 'failing' ? s : undefined;
  });
}

/** The lines of an NDJSON file, parsed ([] when it does not exist). */
export function ndjson(file: string): any[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

/** One POST the peer took: its records (parsed lines). */
export interface PeerRecord {
  id: string;
  stream: string;
  seq: number;
  /** The unit that sent it. */
  unit: string;
  /** Present (true) on an ephemeral event, sent live. */
  ephemeral?: boolean;
  /** Present (true) on a reading of the unit's current view, sent first after an outage. */
  current?: boolean;
  envelope: { seq: number; type: string; data: unknown; meta: Record<string, unknown>; ts: string };
}

/** The HTTP sink's peer. */
export interface Peer {
  url: string;
  /** Every record accepted, in arrival order, but the current view's. */
  records: PeerRecord[];
  /** Each POST of the unit's current view (records flagged current), in arrival order, and how many records had arrived before it. */
  currentPosts: { before: number; records: PeerRecord[] }[];
  /** Headers of the last POST. */
  lastHeaders(): http.IncomingHttpHeaders | undefined;
  /** Stop listening and drop connections (the peer is down). */
  down(): Promise<void>;
  /** Listen again on the same port. */
  up(): Promise<void>;
  /** Resolves once the POST chosen by `holdPost` has arrived (it keeps its records and is never answered). */
  held: Promise<void>;
}

/** How the peer behaves. */
export interface PeerOptions {
  /** A batch holding a record this picks is answered 422 (and kept out). */
  refuse?: (r: PeerRecord) => boolean;
  /** The number of the POST (1, 2, ...) to keep and never answer: a sink mid-batch. */
  holdPost?: number;
  /** Each POST is kept at once and answered this many ms later: a batch stays in flight that long. */
  answerDelayMs?: number;
}

/** A peer on a loopback port. */
export async function startPeer(opts: PeerOptions = {}): Promise<Peer> {
  const refuse = opts.refuse ?? (() => false);
  const records: PeerRecord[] = [];
  const currentPosts: Peer['currentPosts'] = [];
  let posts = 0;
  let onHeld!: () => void;
  const held = new Promise<void>((resolve) => { onHeld = resolve; });
  const sockets = new Set<net.Socket>();
  let headers: http.IncomingHttpHeaders | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      headers = req.headers;
      const batch = Buffer.concat(chunks).toString('utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as PeerRecord);
      if (batch.some(refuse)) {
        res.writeHead(422).end('refused');
        return;
      }
      if (batch.length > 0 && batch.every((r) => r.current === true)) currentPosts.push({ before: records.length, records: batch });
      else records.push(...batch);
      if (++posts === opts.holdPost) onHeld();
      else if (opts.answerDelayMs) setTimeout(() => res.writeHead(204).end(), opts.answerDelayMs);
      else res.writeHead(204).end();
    });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  let port = 0;
  const up = () => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      port = (server.address() as net.AddressInfo).port;
      resolve();
    });
  });
  const down = () => new Promise<void>((resolve) => {
    server.close(() => resolve());
    for (const s of sockets) s.destroy();
  });
  await up();
  return { url: `http://127.0.0.1:${port}/ingest`, records, currentPosts, lastHeaders: () => headers, down, up, held };
}

/** A site day file of envelopes seq from..to (type `a`), with `extra` lines after the first. */
export function dayFile(siteDir: string, day: string, from: number, to: number, extra: string[] = []): string {
  const file = path.join(siteDir, `site_${day}.ndjson`);
  const lines = [];
  for (let seq = from; seq <= to; seq++) lines.push(JSON.stringify({ seq, ts: `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}T10:00:00.000Z`, type: 'a', data: seq, meta: {} }));
  lines.splice(1, 0, ...extra);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The ids of records as the peer took them. */
export const idsOf = (records: PeerRecord[]): string[] => records.map((r) => r.id);

/** `stream:from` .. `stream:to`. */
export const idRange = (stream: string, from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `${stream}:${from + i}`);
