import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, RunningCli } from './helpers/cli.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinksOf, waitFor } from './helpers/forward.js';
import { request } from './helpers/http.js';
import { startBroker, subscribe, type Subscriber, type TestBroker } from './helpers/mosquitto.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { SseReader } from './helpers/sse.js';

// The exactness matrix (contract section 12, "Exact"; docs/http-api.md): a fixed corpus of
// tricky spellings, sent every way in (POST /event, POST /events as an array and as NDJSON,
// `telemetry import`, `telemetry post`, and POST /event during a run), must come back byte
// for byte every way out (the answer, the file, /current, /current/{type}, /history, /stream
// live, snapshot and replay, each CLI output, each sink).
// One daemon per way in, every row at once. Each row is sent twice: as type `all` (one
// history of every row) and as its own type `t<row>` (one current reading per row); `meta` is
// `{"row":N,"v":<the same spelling>}`. Only insignificant whitespace may go.

/**
 * [name, the value as sent, as stored (whitespace between tokens dropped)]. No raw newline (one
 * NDJSON line each) and no `\u0000` (valid JSON, but not valid jsonb: PostgreSQL refuses it and
 * the sink dead-letters it, docs/forwarding.md).
 */
const CORPUS: ReadonlyArray<readonly [string, string, string?]> = [
  ['1.0', '1.0'],
  ['-10.0', '-10.0'],
  ['1E+2', '1E+2'],
  ['20 digits', '12345678901234567890'],
  ['-0', '-0'],
  ['0.1e-7', '0.1e-7'],
  ['1e400: kept as spelled (docs/http-api.md)', '1e400'],
  ['an escaped é', String.raw`"\u00e9"`],
  ['an escaped surrogate pair', String.raw`"\ud83d\ude00"`],
  ['raw é and an emoji', '"é😀"'],
  ['an escaped solidus', String.raw`"\/"`],
  ['every escape', String.raw`"\"\\\b\f\n\r\t\u0001\u001F\u2028"`],
  ['12 levels of nesting', '[[[[[[[[[[[{"a":[1.50,-0.0]}]]]]]]]]]]]'],
  ['empty containers', '{"o":{},"a":[],"s":"","n":null,"t":true}'],
  ['whitespace inside', '{ "a" : [ 1.0 ,\t-0.0 ] , "b" : { } }', '{"a":[1.0,-0.0],"b":{}}'],
  ['a repeated key', '{"k":1.0,"k":2.0}'],
];

const ROWS = CORPUS.map(([name, sent, stored], row) => ({ name, row, sent, stored: stored ?? sent }));
const TYPES = ['all', ...ROWS.map((r) => `t${r.row}`)];

/** Every event of a way in: each row as `all`, then each as `t<row>`. */
const EVENTS = [...ROWS.map((r) => ({ ...r, type: 'all' })), ...ROWS.map((r) => ({ ...r, type: `t${r.row}` }))];
const eventText = (e: (typeof EVENTS)[number]) => `{"type":"${e.type}","data":${e.sent},"meta":{"row":${e.row},"v":${e.sent}}}`;

// the real sinks, shared by the daemons (one prefix, table and path each)
let broker: TestBroker;
let pg: TestPostgres;
let web: { url: string; bodies: Map<string, string[]>; close(): Promise<void> };
test.before(async () => {
  [broker, pg, web] = await Promise.all([startBroker(), startPostgres(), startCapture()]);
});
test.after(async () => {
  await Promise.all([broker.remove(), web.close()]);
  pg.remove();
});

/** A real HTTP server keeping the raw body text of each POST, by path. */
async function startCapture(): Promise<typeof web> {
  const bodies = new Map<string, string[]>();
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.set(req.url!, [...bodies.get(req.url!) ?? [], Buffer.concat(chunks).toString('utf8')]);
      res.writeHead(204).end();
    });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`, bodies,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); for (const s of sockets) s.destroy(); }),
  };
}

const sinks = (way: string) => sinksOf([
  `[[sink]]\nname = "http"\nurl = "${web.url}/${way}"\n${QUICK}`,
  `[[sink]]\nname = "mqtt"\nurl = "${broker.url}"\nprefix = "${way}"\n${QUICK}`,
  `[[sink]]\nname = "pg"\nurl = "${pg.url}"\ntable = "exact_${way}"\n${QUICK}`,
].join('\n'));

/** What a way in hands the daemon; resolves the answers that carry envelopes (by their text). */
type WayIn = (d: TestDaemon, cliArgs: string[]) => Promise<string[]>;

const WAYS_IN: Record<string, WayIn> = {
  event: async (d) => {
    const answers = [];
    for (const e of EVENTS) answers.push(await request(d.url, '/event', { body: eventText(e), headers: { 'content-type': 'application/json' } }));
    for (const a of answers) assert.is(a.status, 200, a.text);
    return answers.map((a) => a.text);
  },
  array: async (d) => {
    const answer = await request(d.url, '/events', { body: `[\n  ${EVENTS.map(eventText).join(' ,\n  ')}\n]`, headers: { 'content-type': 'application/json' } });
    assert.is(answer.text, `{"recorded":${EVENTS.length},"first_seq":1,"last_seq":${EVENTS.length},"run_id":null}`);
    return [];
  },
  ndjson: async (d) => {
    const answer = await request(d.url, '/events', { body: `${EVENTS.map(eventText).join('\n')}\n`, headers: { 'content-type': 'application/x-ndjson' } });
    assert.is(answer.text, `{"recorded":${EVENTS.length},"first_seq":1,"last_seq":${EVENTS.length},"run_id":null}`);
    return [];
  },
  // into a run: its own file, meta.run_id set beside the caller's members, the run's stream in the sinks
  run: async (d) => {
    assert.is((await request(d.url, '/run/start', { body: { run_id: RUN } })).status, 200);
    const answers = [];
    for (const e of EVENTS) answers.push(await request(d.url, '/event', { body: eventText(e), headers: { 'content-type': 'application/json' } }));
    for (const a of answers) assert.is(a.status, 200, a.text);
    return answers.map((a) => a.text);
  },
  import: async (d, args) => {
    const file = path.join(d.siteDir, '..', `${path.basename(d.siteDir)}-corpus.ndjson`);
    fs.writeFileSync(file, `${EVENTS.map(eventText).join('\n')}\n`);
    try {
      const run = await cli(['import', file, ...args]);
      assert.equal([run.code, run.stdout], [0, `imported ${EVENTS.length} event(s) from ${file} in 1 request(s)\n`], run.stderr);
    } finally {
      fs.rmSync(file, { force: true });
    }
    return [];
  },
  post: async (_d, args) => {
    const answers: string[] = [];
    // `all` one by one (the CSV's columns follow their order), then the others four at a time
    for (let i = 0; i < EVENTS.length; i += i < ROWS.length ? 1 : 4) {
      const runs = await Promise.all(EVENTS.slice(i, i < ROWS.length ? i + 1 : i + 4).map((e) =>
        cli(['post', e.type, `--data=${e.sent}`, `--meta={"row":${e.row},"v":${e.sent}}`, ...args])));
      for (const run of runs) assert.is(run.code, 0, run.stderr);
      answers.push(...runs.map((r) => r.stdout));
    }
    for (const a of answers) assert.ok(a.endsWith('}\n'), a);
    return answers.map((a) => a.slice(0, -1));
  },
};

const RUN = 'exact';
const HEAD = /^\{"seq":(\d+),"ts":"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z",/;

/** The file's lines (the site's, or the run's), each checked to be its event exactly: the stored spelling in data and meta. */
function recordedLines(d: TestDaemon, inRun: boolean): string[] {
  const files = inRun ? [path.join(RUN, 'telemetry.ndjson')] : fs.readdirSync(d.siteDir).filter((f) => /^site_\d{8}\.ndjson$/.test(f));
  const lines = files.flatMap((f) => fs.readFileSync(path.join(d.siteDir, f), 'utf8').split('\n').filter((l) => l !== ''));
  const runId = inRun ? `,"run_id":"${RUN}"` : '';
  assert.is(lines.length, EVENTS.length);
  const seen = lines.map((line) => {
    const head = HEAD.exec(line);
    assert.ok(head, line);
    const { type, meta } = JSON.parse(line) as { type: string; meta: { row: number } };
    const row = ROWS[meta.row]!;
    assert.is(line.slice(head![0].length), `"type":"${type}","data":${row.stored},"meta":{"row":${row.row},"v":${row.stored}${runId}}}`, row.name);
    return `${type} ${row.row}`;
  });
  assert.equal(seen.sort(), EVENTS.map((e) => `${e.type} ${e.row}`).sort());
  return lines;
}

/** The current envelope of every type: the last line of that type. */
function currentLines(lines: string[]): Map<string, string> {
  const current = new Map<string, string>();
  for (const line of lines) current.set((JSON.parse(line) as { type: string }).type, line);
  return current;
}

for (const [way, send] of Object.entries(WAYS_IN)) {
  test(`exact every way out, sent by ${way}`, async () => {
    const sub = await subscribe(broker.url, `${way}/#`, true);
    try {
      // no limits, none learned: the events of a type posted one by one through the CLI must not
      // turn stale (a meridian.stale line) while the others are sent
      await withTestDaemon({ forward: sinks(way), env: { TZ: 'UTC' }, flags: { maxAge: '*=none' } }, async (d) => {
        const args = ['--host', '127.0.0.1', '--port', String(d.port)];
        const live = new SseReader(d.url, '/stream');
        await live.live();
        const answers = await send(d, args);
        const lines = recordedLines(d, way === 'run');
        // the live stream: one event frame per recorded event, its data the line
        await live.until('every live event', () => live.named('event').length >= lines.length);
        live.close();
        assert.equal(live.named('event').map((f) => f.data), lines);
        const bySeq = new Map(lines.map((l) => [Number(HEAD.exec(l)![1]), l]));
        for (const answer of answers) assert.is(answer, bySeq.get(Number(HEAD.exec(answer)?.[1])), 'the answer');
        const current = currentLines(lines);
        const all = lines.filter((l) => l.includes('"type":"all"'));
        await daemonOutputs(d, lines, current, all);
        await cliOutputs(args, current, all, way === 'event' ? TYPES : ['t0', 't7', 't14']);
        await sinkOutputs(d, way, lines, sub);
      });
    } finally {
      await sub.close();
    }
  });
}

/** /current, /current/{type}, /history and /stream answer the recorded bytes. */
async function daemonOutputs(d: TestDaemon, lines: string[], current: Map<string, string>, all: string[]): Promise<void> {
  const view = (await request(d.url, '/current')).text;
  // only the members of `current` are read (the body may carry more, such as freshness)
  for (const [type, line] of current) assert.ok(view.includes(`"${type}":${line}`), `/current holds ${line}`);
  for (const [type, line] of current) assert.is((await request(d.url, `/current/${type}`)).text, line, `/current/${type}`);
  const history = (await request(d.url, '/history?type=all')).text;
  assert.ok(history.startsWith(`{"events":[${all.join(',')}],`), history);
  const stream = new SseReader(d.url, '/stream');
  const replay = new SseReader(d.url, '/stream?since=site:0');
  try {
    await stream.live();
    assert.equal(stream.named('snapshot').map((f) => f.data).sort(), [...current.values()].sort());
    // a resumed stream replays from the files
    await replay.live();
    assert.equal(replay.named('replay').map((f) => f.data), lines);
  } finally {
    stream.close();
    replay.close();
  }
}

/** current --json, piped current TYPE, piped --follow, history (NDJSON) and history --csv print the recorded bytes. */
async function cliOutputs(args: string[], current: Map<string, string>, all: string[], oneByOne: string[]): Promise<void> {
  // a few commands at a time: each is a process of its own
  const [view, history, csv] = await Promise.all([['current', '--json'], ['history', 'all'], ['history', 'all', '--csv']].map((c) => cli([...c, ...args])));
  assert.is(view!.code, 0, view!.stderr);
  for (const [type, line] of current) assert.ok(view!.stdout.includes(`"${type}":${line}`), `current --json holds ${line}`);
  for (let i = 0; i < oneByOne.length; i += 4) {
    const types = oneByOne.slice(i, i + 4);
    const runs = await Promise.all(types.map((type) => cli(['current', type, ...args])));
    runs.forEach((one, k) => assert.equal([one.code, one.stdout], [0, `${current.get(types[k]!)}\n`], one.stderr));
  }
  assert.equal([history!.code, history!.stdout], [0, `${all.join('\n')}\n`], history!.stderr);
  assert.is(csv!.code, 0, csv!.stderr);
  const csvLines = csv!.stdout.split('\r\n');
  assert.is(csvLines[0], 'seq,ts,type,run_id,data,data.o,data.a,data.s,data.n,data.t,data.b,data.k');
  // the number rows (0-6) are the `data` cell, as spelled
  for (const row of ROWS.slice(0, 7)) assert.is(csvLines[row.row + 1]!.split(',')[4], row.stored, `CSV of ${row.name}`);
  assert.is(csvLines[ROWS.length]!.split(',').slice(4).join(','), ',,,,,,,2.0', 'CSV of a repeated key: the last, as JSON.parse reads it');
  const follow = new RunningCli(['current', '--follow', ...args]);
  try {
    await follow.until('a line per type', () => follow.lines().length >= current.size);
    assert.equal(follow.lines().sort(), [...current.values()].sort());
  } finally {
    follow.kill();
  }
}

/** The HTTP sink's bodies, the MQTT payloads and the PostgreSQL columns carry the recorded bytes. */
async function sinkOutputs(d: TestDaemon, way: string, lines: string[], sub: Subscriber): Promise<void> {
  for (const sink of ['http', 'mqtt', 'pg']) await caughtUp(d.url, sink);
  const bodies = (web.bodies.get(`/${way}`) ?? []).join('');
  for (const line of lines) assert.ok(bodies.includes(`"envelope":${line}}\n`), `HTTP sink body holds ${line}`);
  const events = () => sub.messages.filter((m) => !m.topic.startsWith(`${way}/current/`));
  await waitFor('every MQTT message', () => (events().length >= lines.length ? true : undefined));
  assert.equal(events().map((m) => m.payload).sort(), [...lines].sort());
  // the line column is the recorded bytes; jsonb respells numbers (-0.0, 1e400...): each jsonb column is what PostgreSQL makes of the recorded text
  const exact = await pg.query<{ line: string }>(`SELECT line FROM exact_${way} ORDER BY seq`);
  const seqOf = (line: string) => Number(/^\{"seq":(\d+)/.exec(line)![1]);
  assert.equal(exact.map((r) => r.line), [...lines].sort((a, b) => seqOf(a) - seqOf(b)), 'PostgreSQL line column: the recorded bytes');
  const rows = await pg.query<{ seq: string; data: string; meta: string; sent_data: string; sent_meta: string }>(
    `SELECT e.seq, e.data::text AS data, e.meta::text AS meta, (l.line::jsonb -> 'data')::text AS sent_data,
       (l.line::jsonb -> 'meta')::text AS sent_meta
     FROM exact_${way} e JOIN unnest($1::text[]) AS l(line) ON (l.line::jsonb ->> 'seq')::bigint = e.seq ORDER BY e.seq`, [lines]);
  assert.is(rows.length, lines.length);
  for (const r of rows) assert.equal([r.data, r.meta], [r.sent_data, r.sent_meta], `PostgreSQL row ${r.seq}`);
  const big = await pg.query<{ n: string }>(`SELECT (data)::text AS n FROM exact_${way} WHERE type = 't3'`);
  assert.equal(big, [{ n: '12345678901234567890' }], 'jsonb keeps every digit');
}

test.run();
