import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MeridianError } from '../lib/errors.js';
import { flagParam, readQuery, single, typesParam, type Query, type QueryPolicy } from '../daemon/http/query.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request, type RawAnswer } from './helpers/http.js';

// The one reader of a query string (daemon/http/query.ts) as a table, then each endpoint that
// takes a query against the real daemon: the same mistake gets the same INVALID_QUERY detail.

const REFUSE: QueryPolicy = { known: ['type', 'since', 'stale'], unknown: 'refuse' };
const IGNORE: QueryPolicy = { known: ['type', 'since', 'stale'], unknown: 'ignore' };

/** What the reader gives: the known parameters as an object, or the detail of its INVALID_QUERY. */
function read(url: string, policy: QueryPolicy, then: (q: Query) => unknown): unknown {
  try {
    return then(readQuery(url, policy));
  } catch (error) {
    if (error instanceof MeridianError && error.code === 'INVALID_QUERY') return { err: error.message };
    throw error;
  }
}

/** The whole query read, as an object. */
const ALL = (q: Query): unknown => Object.fromEntries(q);

// [name, url, policy, what is read of it, expected (or { err: detail })]
const ROWS: [string, string, QueryPolicy, (q: Query) => unknown, unknown][] = [
  ['no query', '/p', REFUSE, ALL, {}],
  ['an empty query', '/p?', REFUSE, ALL, {}],
  ['empty pairs skipped', '/p?&&since=a&', REFUSE, ALL, { since: ['a'] }],
  ['a name without =', '/p?stale', REFUSE, ALL, { stale: [''] }],
  ['percent-decoded, + a space', '/p?since=a%20b+c%2B', REFUSE, ALL, { since: ['a b c+'] }],
  ['type split on raw commas, %2C kept in a name', '/p?type=a,b%2Cc', REFUSE, ALL, { type: ['a', 'b,c'] }],
  ['type repeated: the lists joined in order', '/p?type=b&type=a,c', REFUSE, ALL, { type: ['b', 'a', 'c'] }],
  ['a comma in another value is not split', '/p?since=a,b', REFUSE, ALL, { since: ['a,b'] }],
  ['an encoded name', '/p?%73ince=1', REFUSE, ALL, { since: ['1'] }],
  ['an unknown name refused', '/p?from=1', REFUSE, ALL, { err: 'unknown query parameter "from"; this path takes type, since, stale.' }],
  ['an empty name refused', '/p?=1', REFUSE, ALL, { err: 'unknown query parameter ""; this path takes type, since, stale.' }],
  ['no names known', '/p?a=1', { known: [], unknown: 'refuse' }, ALL, { err: 'unknown query parameter "a"; this path takes none.' }],
  ['an unknown name ignored', '/p?stream=1&since=a', IGNORE, ALL, { since: ['a'] }],
  ['an ignored value is never read', '/p?stream=%E0%A4%A', IGNORE, ALL, {}],
  ['a broken escape in a value', '/p?since=%E0%A4%A', IGNORE, ALL, { err: 'since is not valid percent-encoding: "%E0%A4%A".' }],
  ['a broken escape in a type', '/p?type=a,%ZZ', IGNORE, ALL, { err: 'type is not valid percent-encoding: "%ZZ".' }],
  ['a broken escape in a name, also when ignored', '/p?%ZZ=1', IGNORE, ALL, { err: 'The name of a query parameter is not valid percent-encoding: "%ZZ".' }],
  ['a broken escape is quoted up to 80 characters', `/p?since=%Z${'x'.repeat(100)}`, REFUSE, ALL, { err: `since is not valid percent-encoding: "%Z${'x'.repeat(78)}".` }],
  ['single: one value', '/p?since=a', REFUSE, (q: Query) => single(q, 'since'), 'a'],
  ['single: absent', '/p', REFUSE, (q: Query) => single(q, 'since'), undefined],
  ['single: given twice', '/p?since=a&since=a', REFUSE, (q: Query) => single(q, 'since'), { err: 'since is given more than once.' }],
  ['types: a set', '/p?type=a,b,a', REFUSE, (q: Query) => [...typesParam(q)!], ['a', 'b']],
  ['types: absent is every type', '/p', REFUSE, (q: Query) => typesParam(q), undefined],
  ['types: empty', '/p?type=', REFUSE, (q: Query) => typesParam(q),
    { err: 'type must be a list of event types (1-256 characters, no control characters, comma-separated); got "".' }],
  ['types: an empty item', '/p?type=a,,b', REFUSE, (q: Query) => typesParam(q),
    { err: 'type must be a list of event types (1-256 characters, no control characters, comma-separated); got "".' }],
  ['types: a control character', '/p?type=a%0A', REFUSE, (q: Query) => typesParam(q),
    { err: 'type must be a list of event types (1-256 characters, no control characters, comma-separated); got "a\\n".' }],
  ['types: 257 characters', `/p?type=${'t'.repeat(257)}`, REFUSE, (q: Query) => typesParam(q),
    { err: `type must be a list of event types (1-256 characters, no control characters, comma-separated); got "${'t'.repeat(257)}".` }],
  ['flag: true', '/p?stale=true', REFUSE, (q: Query) => flagParam(q, 'stale'), true],
  ['flag: false', '/p?stale=false', REFUSE, (q: Query) => flagParam(q, 'stale'), false],
  ['flag: absent', '/p', REFUSE, (q: Query) => flagParam(q, 'stale'), undefined],
  ['flag: 1 is not true|false', '/p?stale=1', REFUSE, (q: Query) => flagParam(q, 'stale'), { err: 'stale must be true or false; got "1".' }],
  ['flag: bare', '/p?stale', REFUSE, (q: Query) => flagParam(q, 'stale'), { err: 'stale must be true or false; got "".' }],
  ['flag: TRUE', '/p?stale=TRUE', REFUSE, (q: Query) => flagParam(q, 'stale'), { err: 'stale must be true or false; got "TRUE".' }],
  ['flag: a spelling an endpoint adds', '/p?stale=1', REFUSE, (q: Query) => flagParam(q, 'stale', { '1': true }), true],
  ['flag: not an inherited key', '/p?stale=toString', REFUSE, (q: Query) => flagParam(q, 'stale'), { err: 'stale must be true or false; got "toString".' }],
  ['flag: twice', '/p?stale=true&stale=false', REFUSE, (q: Query) => flagParam(q, 'stale'), { err: 'stale is given more than once.' }],
];

for (const [name, url, policy, then, expected] of ROWS) {
  test(`readQuery: ${name}`, () => assert.equal(read(url, policy, then), expected));
}

// The same mistakes on every endpoint that takes a query: [name, query, detail]. Each endpoint
// test sends each row with its own known names standing in where a row needs one.
const NAME_ESCAPE = 'The name of a query parameter is not valid percent-encoding: "%ZZ".';
const EMPTY_TYPE = 'type must be a list of event types (1-256 characters, no control characters, comma-separated); got "".';
const TYPE_ESCAPE = 'type is not valid percent-encoding: "%E0%A4%A".';

const send = (d: TestDaemon, method: string, path: string): Promise<RawAnswer> =>
  method === 'GET' ? request(d.url, path) : request(d.url, path, { method: 'POST', body: [{ type: 'a', data: 1 }] as unknown as object });

/** Each [query, detail] answered 422 INVALID_QUERY with exactly that detail, nothing recorded. */
async function expectRefused(d: TestDaemon, method: string, path: string, rows: [string, string][]): Promise<void> {
  for (const [query, detail] of rows) {
    const answer = await send(d, method, `${path}?${query}`);
    assert.equal([answer.status, answer.json], [422, { detail, code: 'INVALID_QUERY' }], `${method} ${path}?${query}`);
  }
  assert.equal((await request(d.url, '/history')).json.events, [], 'nothing recorded');
}

test('GET /history: the shared mistakes, an unknown name refused', () => withTestDaemon({}, (d) => expectRefused(d, 'GET', '/history', [
  ['%ZZ=1', NAME_ESCAPE], ['type=a,,b', EMPTY_TYPE], ['type=%E0%A4%A', TYPE_ESCAPE],
  ['cursor=site:0&cursor=site:0', 'cursor is given more than once.'],
  ['stream=1', 'unknown query parameter "stream"; this path takes type, from, to, run, limit, cursor, step, width, fields.'],
])));

test('GET /stream: the shared mistakes, an unknown name refused (JSON, before any stream)', () => withTestDaemon({}, (d) => expectRefused(d, 'GET', '/stream', [
  ['%ZZ=1', NAME_ESCAPE], ['type=a,,b', EMPTY_TYPE], ['type=%E0%A4%A', TYPE_ESCAPE],
  ['since=site:0&since=site:0', 'since is given more than once.'],
  ['stream=1', 'unknown query parameter "stream"; this path takes type, since, alarms.'],
])));

test('GET /current: the shared mistakes; an unknown name ignored, its value never read', () => withTestDaemon({}, async (d) => {
  await expectRefused(d, 'GET', '/current', [
    ['%ZZ=1', NAME_ESCAPE], ['type=a,,b', EMPTY_TYPE], ['type=%E0%A4%A', TYPE_ESCAPE],
    ['stale=true&stale=true', 'stale is given more than once.'],
    ['stale=1', 'stale must be true or false; got "1".'],
  ]);
  for (const query of ['stream=1', 'stream=%E0%A4%A', 'partial=maybe']) {
    const answer = await request(d.url, `/current?${query}`);
    assert.equal([answer.status, answer.text], [200, '{"current":{}}'], query);
  }
}));

test('POST /events: the shared mistakes on partial; an unknown name ignored; partial keeps 1, 0 and a bare ?partial', () => withTestDaemon({}, async (d) => {
  await expectRefused(d, 'POST', '/events', [
    ['%ZZ=1', NAME_ESCAPE],
    ['partial=%E0%A4%A', 'partial is not valid percent-encoding: "%E0%A4%A".'],
    ['partial=true&partial=true', 'partial is given more than once.'],
    ['partial=maybe', 'partial must be true or false; got "maybe".'],
  ]);
  const bad = [{ type: 'a', data: 1 }, { type: 'b' }] as unknown as object;
  // [query, status, code]: true-ish records the valid event (422 BATCH_PARTLY_RECORDED), false-ish nothing (422 INVALID_BATCH)
  const spellings: [string, string][] = [['partial=true', 'BATCH_PARTLY_RECORDED'], ['partial=1', 'BATCH_PARTLY_RECORDED'], ['partial', 'BATCH_PARTLY_RECORDED'],
    ['partial=false', 'INVALID_BATCH'], ['partial=0', 'INVALID_BATCH'], ['', 'INVALID_BATCH'], ['x=%E0%A4%A&partial=1', 'BATCH_PARTLY_RECORDED']];
  for (const [query, code] of spellings) {
    const answer = await request(d.url, `/events?${query}`, { method: 'POST', body: bad });
    assert.equal([answer.status, answer.json.code], [422, code], query);
  }
  const fine = await request(d.url, '/events?unknown=1', { method: 'POST', body: [{ type: 'a', data: 2 }] as unknown as object });
  assert.equal([fine.status, fine.json], [200, { recorded: 1, first_seq: 5, last_seq: 5, run_id: null }]);
}));

test('POST /event takes no parameter: its query is never read, a broken escape included', () => withTestDaemon({}, async (d) => {
  const answer = await request(d.url, '/event?%ZZ=1&partial=maybe&type=a,,b', { method: 'POST', body: { type: 'a', data: 1 } });
  assert.equal([answer.status, answer.json.seq], [200, 1]);
}));

test.run();
