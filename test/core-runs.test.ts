import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { readLines, removeDir, tempDir } from './helpers/tmp.js';

// Run start resolution (docs/http-api.md, run start): run id, run dir, safety, the run record.

const T0 = '2026-03-17T20:00:00.000Z';

function withDaemon(fn: (d: TestDaemon, clock: ManualClock) => Promise<void>, prepare?: (siteDir: string) => void): Promise<void> {
  const siteDir = tempDir();
  prepare?.(siteDir);
  const clock = new ManualClock(T0);
  return withTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } }, (d) => fn(d, clock));
}

/** Every entry (directories too) under `dir`, with file contents. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath ?? entry.path, entry.name);
    out[path.relative(dir, full)] = entry.isFile() ? fs.readFileSync(full, 'utf8') : '<dir>';
  }
  return out;
}

// [name, directories and files already in the site directory, derived run id]
const DERIVED: [string, { dirs?: string[]; files?: string[] }, string][] = [
  ['none yet', {}, '001'],
  ['001 and 002', { dirs: ['001', '002'] }, '003'],
  ['a gap is not filled', { dirs: ['001', '005'] }, '006'],
  ['0999 widens to 1000', { dirs: ['0999'] }, '1000'],
  ['999 becomes 1000', { dirs: ['999'] }, '1000'],
  ['the widest name sets the padding', { dirs: ['7', '00042'] }, '00043'],
  ['a short name is padded to 3 digits', { dirs: ['7'] }, '008'],
  ['numeric files are ignored', { dirs: ['001'], files: ['005', '009.ndjson'] }, '002'],
  ['non-numeric names are ignored', { dirs: ['001', 'n7', '12a', 'calib', '2026-03-17'] }, '002'],
  ['site files and state are ignored', { files: ['site_20260317.ndjson'] }, '001'],
];

for (const [name, existing, expected] of DERIVED) {
  test(`derived run id: ${name} -> ${expected}`, () => withDaemon(async (d) => {
    const answer = await request(d.url, '/run/start', { method: 'POST' });
    assert.is(answer.status, 200, answer.text);
    assert.equal(answer.json, { run_dir: path.join(d.siteDir, expected), run_id: expected, meta: { run_id: expected }, started_at: T0 });
    assert.ok(fs.statSync(path.join(d.siteDir, expected)).isDirectory());
  }, (siteDir) => {
    for (const dir of existing.dirs ?? []) fs.mkdirSync(path.join(siteDir, dir));
    for (const file of existing.files ?? []) fs.writeFileSync(path.join(siteDir, file), '');
  }));
}

// [name, start body, run id, meta of the record]
const ID_PRECEDENCE: [string, object, string, object][] = [
  ['run_id wins over meta.run_id', { run_id: 'field', meta: { run_id: 'meta', observer: 'ada' } }, 'field', { run_id: 'field', observer: 'ada' }],
  ['meta.run_id when no run_id', { meta: { observer: 'ada', run_id: 'meta' } }, 'meta', { observer: 'ada', run_id: 'meta' }],
  ['derived when neither', { meta: { observer: 'ada' } }, '001', { observer: 'ada', run_id: '001' }],
  ['an empty object body', {}, '001', { run_id: '001' }],
  ['a non-string meta.run_id is overridden by run_id', { run_id: 'x', meta: { run_id: 5 } }, 'x', { run_id: 'x' }],
];

for (const [name, body, runId, meta] of ID_PRECEDENCE) {
  test(`run id: ${name}`, () => withDaemon(async (d) => {
    const answer = await request(d.url, '/run/start', { body });
    assert.is(answer.status, 200, answer.text);
    assert.equal(answer.json, { run_dir: path.join(d.siteDir, runId), run_id: runId, meta, started_at: T0 });
  }));
}

test('run_dir: relative under the site directory, absolute as is', () => withDaemon(async (d, clock) => {
  const relative = await request(d.url, '/run/start', { body: { run_id: 'n1', run_dir: 'nights/2026-03-17' } });
  assert.is(relative.json.run_dir, path.join(d.siteDir, 'nights', '2026-03-17'));
  assert.is((await postEvent(d.url, { type: 'dome', data: 'open' })).json.seq, 1);
  assert.equal(readLines(path.join(d.siteDir, 'nights', '2026-03-17', 'telemetry.ndjson')).length, 1);
  await request(d.url, '/run/stop', { method: 'POST' });

  const elsewhere = tempDir();
  try {
    const absolute = path.join(elsewhere, 'deep', 'run');
    clock.advance(1000);
    const answer = await request(d.url, '/run/start', { body: { run_dir: `${absolute}/./` } });
    assert.equal(answer.json, { run_dir: absolute, run_id: '001', meta: { run_id: '001' }, started_at: '2026-03-17T20:00:01.000Z' });
    await postEvent(d.url, { type: 'dome', data: 'open' });
    assert.equal(readLines(path.join(absolute, 'telemetry.ndjson')), [
      { seq: 1, ts: '2026-03-17T20:00:01.000Z', type: 'dome', data: 'open', meta: { run_id: '001' } }]);
    assert.not.ok(fs.existsSync(path.join(d.siteDir, '001')));
  } finally {
    removeDir(elsewhere);
  }
}));

// [name, start body, exact detail]
const UNSAFE: [string, object, string][] = [
  ['run_dir ../x', { run_dir: '../x' }, 'run_dir "../x" must name a directory inside the site directory'],
  ['run_dir a/../../x', { run_dir: 'a/../../x' }, 'run_dir "a/../../x" must name a directory inside the site directory'],
  ['run_dir .', { run_dir: '.' }, 'run_dir "." must name a directory inside the site directory'],
  ['run_dir a/..', { run_dir: 'a/..' }, 'run_dir "a/.." must name a directory inside the site directory'],
  ['run_dir ..', { run_dir: '..' }, 'run_dir ".." must name a directory inside the site directory'],
  ['run_dir with NUL', { run_dir: 'a\u0000b' }, 'run_dir must not contain NUL characters'],
  ['run_id a/b', { run_id: 'a/b' }, 'run_id must be 1-128 letters, digits, \'.\', \'_\' or \'-\' (and not \'.\' or \'..\'); got "a/b"'],
  ['run_id ..', { run_id: '..' }, 'run_id must be 1-128 letters, digits, \'.\', \'_\' or \'-\' (and not \'.\' or \'..\'); got ".."'],
  ['run_id .', { run_id: '.' }, 'run_id must be 1-128 letters, digits, \'.\', \'_\' or \'-\' (and not \'.\' or \'..\'); got "."'],
  ['run_id empty', { run_id: '' }, 'run_id must be 1-128 letters, digits, \'.\', \'_\' or \'-\' (and not \'.\' or \'..\'); got ""'],
  ['run_id with a space', { run_id: 'night 1' }, 'run_id must be 1-128 letters, digits, \'.\', \'_\' or \'-\' (and not \'.\' or \'..\'); got "night 1"'],
  ['run_id of 129 characters', { run_id: 'r'.repeat(129) }, `run_id must be 1-128 letters, digits, '.', '_' or '-' (and not '.' or '..'); got "${'r'.repeat(129)}"`],
  ['run_id ../x with a safe run_dir', { run_id: '../x', run_dir: 'ok' }, 'run_id must be 1-128 letters, digits, \'.\', \'_\' or \'-\' (and not \'.\' or \'..\'); got "../x"'],
  ['meta.run_id ../x', { meta: { run_id: '../x' } }, 'meta.run_id must be 1-128 letters, digits, \'.\', \'_\' or \'-\' (and not \'.\' or \'..\'); got "../x"'],
  ['meta.run_id not a string', { meta: { run_id: 5 } }, 'meta.run_id must be a string when it names the run'],
];

for (const [name, body, detail] of UNSAFE) {
  test(`run start refuses ${name}: 422 INVALID_RUN, nothing created`, () => withDaemon(async (d) => {
    await postEvent(d.url, { type: 'weather', data: 1 });
    const before = tree(d.siteDir);
    const parentBefore = fs.readdirSync(path.dirname(d.siteDir)).filter((n) => n === 'x' || n === 'a');
    const answer = await request(d.url, '/run/start', { body });
    assert.is(answer.status, 422);
    assert.is(answer.text, JSON.stringify({ detail, code: 'INVALID_RUN' }));
    assert.equal(tree(d.siteDir), before);
    assert.equal(fs.readdirSync(path.dirname(d.siteDir)).filter((n) => n === 'x' || n === 'a'), parentBefore);
    assert.is((await request(d.url, '/ready')).json.run_active, false);
    assert.is((await postEvent(d.url, { type: 'weather', data: 2 })).json.seq, 2);
  }));
}

test('a run id of exactly 128 safe characters is accepted', () => withDaemon(async (d) => {
  const id = `A-z_0.${'r'.repeat(122)}`;
  const answer = await request(d.url, '/run/start', { body: { run_id: id } });
  assert.is(answer.status, 200, answer.text);
  assert.is(answer.json.run_dir, path.join(d.siteDir, id));
}));

test('meta.run_id is stamped during a run and wins over the caller\'s; outside a run meta is untouched', () => withDaemon(async (d) => {
  await request(d.url, '/run/start', { body: { run_id: 'n1' } });
  const plain = await postEvent(d.url, { type: 'a', data: 1 });
  assert.equal(plain.json.meta, { run_id: 'n1' });
  const spoofed = await postEvent(d.url, { type: 'a', data: 2, meta: { run_id: 'other', filter: 'R' } });
  assert.is(spoofed.text, `{"seq":2,"ts":"${T0}","type":"a","data":2,"meta":{"run_id":"n1","filter":"R"}}`);
  const added = await postEvent(d.url, { type: 'a', data: 3, meta: { filter: 'V' } });
  assert.equal(added.json.meta, { filter: 'V', run_id: 'n1' });
  await request(d.url, '/run/stop', { method: 'POST' });
  const after = await postEvent(d.url, { type: 'a', data: 4, meta: { run_id: 'other' } });
  assert.equal(after.json.meta, { run_id: 'other' });
}));

test('run record: GET /run, stop adds stopped_at, /ready run_active follows', () => withDaemon(async (d, clock) => {
  assert.is((await request(d.url, '/ready')).json.run_active, false);
  const started = await request(d.url, '/run/start', { body: { run_id: 'n1', meta: { observer: 'ada', target: { ra: 10.5 } } } });
  const record = { run_dir: path.join(d.siteDir, 'n1'), run_id: 'n1', meta: { observer: 'ada', target: { ra: 10.5 }, run_id: 'n1' }, started_at: T0 };
  assert.equal(started.json, record);
  assert.equal(Object.keys(started.json), ['run_dir', 'run_id', 'meta', 'started_at']);
  assert.is((await request(d.url, '/run')).text, started.text);
  assert.is((await request(d.url, '/ready')).json.run_active, true);
  clock.set('2026-03-18T05:30:00.250Z');
  const stopped = await request(d.url, '/run/stop', { method: 'POST' });
  assert.equal(stopped.json, { ...record, stopped_at: '2026-03-18T05:30:00.250Z' });
  assert.is((await request(d.url, '/ready')).json.run_active, false);
  assert.is((await request(d.url, '/run')).status, 404);
}));

test('a run restarted on an existing run_dir continues its seq; a new run starts at 1', () => withDaemon(async (d) => {
  await request(d.url, '/run/start', { body: { run_id: 'n1' } });
  await postEvent(d.url, { type: 'a', data: 1 });
  const second = await postEvent(d.url, { type: 'a', data: 2 });
  await request(d.url, '/run/stop', { method: 'POST' });
  const again = await request(d.url, '/run/start', { body: { run_id: 'n1' } });
  assert.is(again.status, 200);
  assert.is((await request(d.url, '/current?freshness=false')).text, `{"current":{"a":${second.text}}}`, 'a run start leaves the view as it was');
  assert.is((await postEvent(d.url, { type: 'a', data: 3 })).json.seq, 3);
  await request(d.url, '/run/stop', { method: 'POST' });
  await request(d.url, '/run/start', { body: { run_id: 'n2' } });
  assert.is((await postEvent(d.url, { type: 'a', data: 1 })).json.seq, 1);
  assert.equal((readLines(path.join(d.siteDir, 'n1', 'telemetry.ndjson')) as { seq: number }[]).map((e) => e.seq), [1, 2, 3]);
}));

test('the derived id counts runs started earlier in the same site directory', () => withDaemon(async (d) => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push((await request(d.url, '/run/start', { method: 'POST' })).json.run_id);
    await request(d.url, '/run/stop', { method: 'POST' });
  }
  assert.equal(ids, ['001', '002', '003']);
}));

// [name, run starts in order (body), derived ids expected]: ids never repeat in a site directory
const NEVER_REPEAT: [string, object[], string[]][] = [
  ['POCS: run_dir runs/<sequence id>, no id', [{ run_dir: 'runs/a' }, { run_dir: 'runs/b' }, { run_dir: 'runs/c' }], ['001', '002', '003']],
  ['an absolute run_dir elsewhere', [{ run_dir: '<elsewhere>/x' }, {}], ['001', '002']],
  ['an explicit numeric id counts', [{ run_id: '041', run_dir: 'runs/a' }, { run_dir: 'runs/b' }], ['041', '042']],
  ['an explicit wide id sets the width', [{ run_id: '00007', run_dir: 'runs/a' }, {}], ['00007', '00008']],
  ['non-numeric ids do not count', [{ run_id: 'calib', run_dir: 'runs/a' }, { run_dir: 'runs/b' }], ['calib', '001']],
  ['a directory beats the runs seen', [{ run_dir: 'runs/a' }, { run_id: '010' }, { run_dir: 'runs/b' }], ['001', '010', '011']],
];

for (const [name, starts, ids] of NEVER_REPEAT) {
  test(`derived run ids never repeat: ${name}`, () => withDaemon(async (d) => {
    const elsewhere = tempDir();
    try {
      const got: string[] = [];
      for (const body of starts) {
        const fixed = JSON.parse(JSON.stringify(body).replace('<elsewhere>', elsewhere)) as object;
        const answer = await request(d.url, '/run/start', { body: fixed });
        assert.is(answer.status, 200, answer.text);
        got.push(answer.json.run_id);
        await request(d.url, '/run/stop', { method: 'POST' });
      }
      assert.equal(got, ids);
    } finally {
      removeDir(elsewhere);
    }
  }));
}

test('derived run ids never repeat across restarts, and when a run directory was deleted', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(T0);
  try {
    const start = async (d: TestDaemon, body: object) => (await request(d.url, '/run/start', { body })).json.run_id as string;
    let d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
    assert.is(await start(d, { run_dir: 'runs/night1' }), '001');
    await request(d.url, '/run/stop', { method: 'POST' });
    assert.is(await start(d, {}), '002');
    await request(d.url, '/run/stop', { method: 'POST' });
    await d.close();
    removeDir(path.join(siteDir, '002'));
    d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
    assert.is(await start(d, { run_dir: 'runs/night2' }), '003');
    await d.close();
    assert.equal(JSON.parse(fs.readFileSync(path.join(siteDir, '.meridian', 'runs.json'), 'utf8')), {
      format: 1,
      runs: [
        // run dirs inside the site directory are recorded relative to it (a site directory moved keeps its runs)
        { run_id: '001', run_dir: path.join('runs', 'night1'), started_at: T0, last_seq: 0 },
        { run_id: '002', run_dir: '002', started_at: T0, last_seq: 0 },
        { run_id: '003', run_dir: path.join('runs', 'night2'), started_at: T0 },
      ],
    });
  } finally {
    removeDir(siteDir);
  }
});

test('a damaged runs.json: a warning, and ids follow the directories', () => {
  const siteDir = tempDir();
  fs.mkdirSync(path.join(siteDir, '.meridian'));
  fs.writeFileSync(path.join(siteDir, '.meridian', 'runs.json'), '{"runs":');
  fs.mkdirSync(path.join(siteDir, '004'));
  return withTestDaemon({ siteDir, env: { TZ: 'UTC' } }, async (d) => {
    assert.ok(d.logs.some((l) => l.endsWith(`WARN run list ${path.join(siteDir, '.meridian', 'runs.json')} is damaged (not a run list); the runs are found again from the run files and the timeline`)));
    assert.is((await request(d.url, '/run/start', { method: 'POST' })).json.run_id, '005');
  });
});

test('a run restarted on its directory continues after ephemeral readings at its end', () => withDaemon(async (d) => {
  await request(d.url, '/run/start', { body: { run_dir: 'runs/x' } });
  await postEvent(d.url, { type: 'a', data: 1 });
  await postEvent(d.url, { type: 'a', data: 2, store_permanently: false });
  await request(d.url, '/run/stop', { method: 'POST' });
  await request(d.url, '/run/start', { body: { run_dir: 'runs/x', run_id: 'again' } });
  assert.is((await postEvent(d.url, { type: 'a', data: 3 })).json.seq, 3);
  assert.equal((readLines(path.join(d.siteDir, 'runs', 'x', 'telemetry.ndjson')) as { seq: number }[]).map((e) => e.seq), [1, 3]);
}));

test.run();
