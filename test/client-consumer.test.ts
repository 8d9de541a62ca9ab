import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { compile, createConsumerProject, run } from './helpers/consumer.js';
import { freePort, ROOT, withTestDaemon } from './helpers/daemon.js';
import { removeDir } from './helpers/tmp.js';

// "A program in another folder can npm install the package path, import the client by name,
// and drive a daemon through the whole lifecycle with typed results and errors."
// The type-level half: strict tsc over the installed declarations, with @ts-expect-error
// lines that fail the compile if any of those types were `any`.

const CONSUMER = `import {
  TelemetryClient, TelemetryClientError, TelemetryConnectionError, siteDayKey,
  type CurrentAnswer, type Envelope, type JsonValue, type PostEventOptions, type ReadyAnswer, type RunRecord,
  type StartRunOptions, type StoppedRunRecord, type TelemetryClientOptions,
} from 'meridian-telemetry';

const options: TelemetryClientOptions = { host: '127.0.0.1', port: process.env.DAEMON_PORT!, timeout: 2, env: {} };
const client = new TelemetryClient(options);

const ready: ReadyAnswer = await client.ready();
console.log('ready', ready.ready, ready.run_active, typeof ready.version);

const runOptions: StartRunOptions = { runId: 'n1', meta: { focus: 1.5 } };
const run: RunRecord = await client.startRun(runOptions);
console.log('run', run.run_id, JSON.stringify(run.meta), run.started_at);

const reading: JsonValue = { temp_c: 4.5, sky: ['clear', null] };
const postOptions: PostEventOptions = { makeCurrent: true, meta: { station: 'ws1' } };
const envelope: Envelope = await client.postEvent('weather', reading, postOptions);
const ts: string = envelope.ts;
const seq: number = envelope.seq;
console.log('posted', seq, envelope.type, ts, JSON.stringify(envelope.data), JSON.stringify(envelope.meta));

const view: CurrentAnswer = await client.current();
console.log('current', Object.keys(view.current).join(','), view.current.weather?.seq);
console.log('one', (await client.currentEvent('weather')).seq);

try {
  await client.currentEvent('rain');
} catch (error) {
  if (!(error instanceof TelemetryClientError)) throw error;
  const status: number = error.statusCode;
  const detail: string = error.detail;
  const code: string | undefined = error.code;
  console.log('rain', error.name, status, code, detail);
}

const stopped: StoppedRunRecord = await client.stopRun();
console.log('stopped', stopped.run_id, stopped.stopped_at);
console.log('site day', siteDayKey('2026-03-17T11:59:00+01:00'), siteDayKey('2026-03-17T12:00:00+01:00'));

const nowhere = new TelemetryClient({ baseUrl: 'http://127.0.0.1:' + process.env.REFUSED_PORT, env: {} });
try {
  await nowhere.health();
} catch (error) {
  if (!(error instanceof TelemetryConnectionError)) throw error;
  const reason: string = error.reason;
  const timedOut: boolean = error.timedOut;
  console.log('nowhere', error.name, error instanceof TelemetryClientError, error.statusCode, reason, timedOut);
}

console.log('shutdown', (await client.shutdown()).shutting_down);

// Never called: each line must be a compile error, or tsc fails on the unused directive.
export function typeChecksOnly(e: TelemetryClientError): void {
  // @ts-expect-error the event type is a string
  void client.postEvent(42, { temp_c: 4.5 });
  // @ts-expect-error the options are camelCase: run_id is not one of them
  void client.startRun({ run_id: 'n2' });
  // @ts-expect-error makeCurrent is a boolean
  void client.postEvent('weather', 1, { makeCurrent: 'yes' });
  // @ts-expect-error data must be JSON: a function is not
  void client.postEvent('weather', () => 1);
  // @ts-expect-error timeout is a number of seconds
  void new TelemetryClient({ timeout: '5' });
  // @ts-expect-error ts stays an ISO string, not a Date
  const when: Date = envelope.ts;
  // @ts-expect-error code is undefined when the daemon sent none
  const code: string = e.code;
  // @ts-expect-error answers are typed: there is no such field
  void ready.runActive;
  void when; void code;
}
`;

test('a consumer project installs the package by its path, type-checks strictly and drives a daemon through the lifecycle', async () => {
  const project = await createConsumerProject({ 'consumer.ts': CONSUMER });
  try {
    await withTestDaemon({ clock: new ManualClock('2026-03-17T20:05:48.955Z'), env: { TZ: 'UTC' } }, async (daemon) => {
      assert.is(project.install.code, 0, project.install.stderr);
      const installed = path.join(project.dir, 'node_modules', 'meridian-telemetry');
      assert.ok(fs.lstatSync(installed).isSymbolicLink(), 'npm links a folder dependency');
      assert.is(fs.realpathSync(installed), fs.realpathSync(ROOT));
      assert.equal(JSON.parse(fs.readFileSync(path.join(project.dir, 'package.json'), 'utf8')).dependencies,
        { 'meridian-telemetry': `file:${path.relative(project.dir, ROOT)}` });

      const compiled = await compile(project.dir);
      assert.equal([compiled.code, compiled.stdout, compiled.stderr], [0, '', '']);

      const refusedPort = await freePort();
      const env = { DAEMON_PORT: String(daemon.port), REFUSED_PORT: String(refusedPort) };
      const consumer = await run(process.execPath, ['out/consumer.js'], { cwd: project.dir, env, timeoutMs: 30_000 });
      assert.equal([consumer.code, consumer.stderr], [0, '']);
      assert.is(consumer.stdout, [
        'ready true false string',
        'run n1 {"focus":1.5,"run_id":"n1"} 2026-03-17T20:05:48.955Z',
        'posted 1 weather 2026-03-17T20:05:48.955Z {"temp_c":4.5,"sky":["clear",null]} {"station":"ws1","run_id":"n1"}',
        'current weather 1',
        'one 1',
        'rain TelemetryClientError 404 NO_READING There is no current reading of type "rain".',
        'stopped n1 2026-03-17T20:05:48.955Z',
        'site day 20260316 20260317',
        'nowhere TelemetryConnectionError true 0 ECONNREFUSED false',
        'shutdown true',
        '',
      ].join('\n'));
      await daemon.daemon.closed;
    });
  } finally {
    removeDir(project.dir);
  }
});

test('the consumer check can fail: a wrong use of the package is a compile error naming it', async () => {
  const wrong = `import { TelemetryClient } from 'meridian-telemetry';\nawait new TelemetryClient().postEvent(42, {});\n`;
  // the declarations themselves were checked by the test above: here only this use of them
  const project = await createConsumerProject({ 'wrong.ts': wrong }, { checkDeclarations: false });
  try {
    const compiled = await compile(project.dir);
    assert.is(compiled.code, 1, 'tsc: errors, nothing emitted');
    assert.is(compiled.stdout,
      "wrong.ts(2,39): error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'.\n");
    assert.not.ok(fs.existsSync(path.join(project.dir, 'out', 'wrong.js')), 'nothing emitted on error');
  } finally {
    removeDir(project.dir);
  }
});

test.run();
