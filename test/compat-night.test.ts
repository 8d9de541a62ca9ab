import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request, type RawAnswer } from './helpers/http.js';
import { withRestarts } from './helpers/restart.js';

// A compressed POCS night against the real daemon process, through the exact bodies of the
// panoptes-utils 0.5.3 client: site telemetry in the evening, runs started with
// run_dir="runs/<sequence id>" and stopped, 61% of the readings ephemeral, and a kill -9 in
// the middle of a run while readings are in flight. Afterwards every acknowledged permanent
// reading is in its file exactly once, no ephemeral one in any file, run ids unique, the
// view right (issue 12).

/** What POCS posts, and whether its config makes it ephemeral. */
const KINDS: Array<[type: string, permanent: boolean]> = [
  ['weather', false], ['status', false], ['offset_info', false], ['remote_sensors', false],
  ['power', true], ['observations', true], ['camera', true], ['mount', true],
];

interface Sent {
  type: string;
  n: number;
  permanent: boolean;
  answer?: RawAnswer;
}

class Night {
  url = '';
  readonly sent: Sent[] = [];
  private n = 0;

  /** One reading as the 0.5.3 client sends it (json.dumps spacing, its own ts). */
  async post(type: string, permanent: boolean): Promise<Sent> {
    const entry: Sent = { type, n: this.n++, permanent };
    this.sent.push(entry);
    const ts = new Date().toISOString();
    const body = `{"type": "${type}", "data": {"n": ${entry.n}, "value": ${entry.n}.0, "ok": true}, "make_current": true, `
      + `"meta": {}, "store_permanently": ${permanent}, "ts": "${ts}"}`;
    entry.answer = await request(this.url, '/event', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    return entry;
  }

  /** A few rounds of every kind, one after the other. */
  async rounds(count: number): Promise<void> {
    for (let r = 0; r < count; r++) for (const [type, permanent] of KINDS) await this.post(type, permanent);
  }

  startRun(sequence: string): Promise<RawAnswer> {
    const body = `{"run_dir": "runs/${sequence}", "run_id": null, "meta": {}}`;
    return request(this.url, '/run/start', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  }
}

/** Every line of every telemetry file under `dir` (not .meridian/), with its file. */
function telemetryLines(dir: string): Array<{ file: string; line: string }> {
  const out: Array<{ file: string; line: string }> = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath ?? entry.path, entry.name);
    const rel = path.relative(dir, full);
    if (!entry.isFile() || rel.startsWith('.meridian') || !rel.endsWith('.ndjson')) continue;
    for (const line of fs.readFileSync(full, 'utf8').split('\n').filter(Boolean)) out.push({ file: rel, line });
  }
  return out;
}

test('a POCS night with a kill -9 in the middle of a run', () => withRestarts(async (site) => {
  const dir = site.dir;
  const night = new Night();
  let d = await site.start();
  night.url = d.url;
  await night.rounds(3);
  const run1 = await night.startRun('PAN001_14d3bd_20260317T200000');
  await night.rounds(4);
  assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
  await night.rounds(1);
  const run2 = await night.startRun('PAN001_14d3bd_20260317T230000');
  await night.rounds(3);

  // a burst of concurrent readings, and the daemon killed under it
  let killing = false;
  const burst = async (w: number) => {
    for (let i = 0; i < 40 && !killing; i++) {
      try {
        await night.post(`burst-${w}`, i % 3 === 0);
      } catch {
        return; // the daemon died under this request: never acknowledged
      }
    }
  };
  const workers = [0, 1, 2, 3].map(burst);
  while (night.sent.filter((s) => s.type.startsWith('burst') && s.answer).length < 60) await night.post('status', false);
  killing = true;
  await site.kill9();
  await Promise.all(workers);
  const beforeKill = lastAcknowledged(night.sent);

  d = await site.start();
  night.url = d.url;
  // the run is active again with the same record; the view is what was acknowledged
  assert.is((await request(d.url, '/run')).text, run2.text);
  const view = (await request(d.url, '/current')).json.current as Record<string, { seq: number; data: { n: number } }>;
  for (const [type, answer] of beforeKill) {
    if (type.startsWith('burst')) {
      // a reading in flight at the kill may have been written without its answer
      assert.ok(view[type]!.data.n >= answer.json.data.n, `${type}: at least the last acknowledged one`);
    } else {
      assert.equal(view[type], answer.json, `${type} after kill -9`);
    }
  }
  await night.rounds(2);
  assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
  const run3 = await night.startRun('PAN001_14d3bd_20260318T010000');
  await night.rounds(2);
  await request(d.url, '/run/stop', { method: 'POST' });
  await night.rounds(2);

  assert.equal([run1, run2, run3].map((r) => r.json.run_id), ['001', '002', '003'], 'run ids unique');
  const lines = telemetryLines(dir);
  const answered = night.sent.filter((s) => s.answer?.status === 200);
  for (const s of answered.filter((s) => s.permanent)) {
    const found = lines.filter((l) => l.line === s.answer!.text);
    assert.is(found.length, 1, `permanent reading ${s.n} (${s.type}) is in its file exactly once`);
  }
  const ephemeral = new Set(night.sent.filter((s) => !s.permanent).map((s) => s.n));
  assert.equal(lines.filter((l) => ephemeral.has(JSON.parse(l.line).data.n)).map((l) => l.line), [], 'no ephemeral reading in any file');
  const unanswered = night.sent.filter((s) => s.permanent && s.answer?.status !== 200).map((s) => s.n);
  for (const n of unanswered) assert.ok(lines.filter((l) => JSON.parse(l.line).data.n === n).length <= 1, `in-flight ${n} at most once`);
  for (const file of new Set(lines.map((l) => l.file))) {
    const seqs = lines.filter((l) => l.file === file).map((l) => JSON.parse(l.line).seq as number);
    assert.ok(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!), `${file}: seqs rise, never repeat`);
  }
  const share = night.sent.filter((s) => !s.permanent).length / night.sent.length;
  assert.ok(share > 0.5, `most readings ephemeral (${share})`);
  // the view: the last acknowledged reading of every type, whatever its target
  const final = (await request(d.url, '/current')).json.current;
  for (const [type, answer] of lastAcknowledged(night.sent)) {
    if (!type.startsWith('burst')) assert.equal(final[type], answer.json, `${type} at dawn`);
  }
}));

/** Per type, the answer of the last reading acknowledged. */
function lastAcknowledged(sent: Sent[]): Map<string, RawAnswer> {
  const last = new Map<string, RawAnswer>();
  for (const s of sent) if (s.answer?.status === 200) last.set(s.type, s.answer);
  return last;
}

test.run();
