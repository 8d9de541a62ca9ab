import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';

// Every malformed and edge cursor, given the three ways a cursor comes in (history's `cursor`,
// the stream's `since`, the Last-Event-ID header), against the real daemon: one exact
// sentence and code each (docs/http-api.md#cursors-and-the-record-order). The daemon holds
// site seqs 1-3 and run 001 seqs 1-2.



// [name, cursor text, the detail after "<what> " (422 INVALID_CURSOR), or the seqs answered (200)]
const CURSORS: [string, string, string | number[]][] = [
  ['site:0, the position before everything', 'site:0', [1, 1, 2, 2, 3]],
  ['a run event', 'run:001:1', [2, 2, 3]],
  ['a run seq 0', 'run:001:0', '"run:001:0" names no event: a run\'s seqs start at 1 (site:0 alone names the position before everything).'],
  ['a run seq 0 of an unknown run', 'run:zz:0', '"run:zz:0" names no event: a run\'s seqs start at 1 (site:0 alone names the position before everything).'],
  ['a negative seq', 'site:-1', '"site:-1" is not a cursor: its seq "-1" is not a whole number 0 or more.'],
  ['a fractional seq', 'site:1.5', '"site:1.5" is not a cursor: its seq "1.5" is not a whole number 0 or more.'],
  ['a seq beyond 2^53', 'site:9007199254740993', '"site:9007199254740993" is not a cursor: its seq is beyond the largest one a cursor can name (9007199254740991).'],
  ['a seq of 30 digits', 'run:001:123456789012345678901234567890', '"run:001:123456789012345678901234567890" is not a cursor: its seq is beyond the largest one a cursor can name (9007199254740991).'],
  ['the largest seq, not recorded', 'site:9007199254740991', 'site:9007199254740991 is beyond the last seq recorded in the site (3).'],
  ['leading zeros', 'site:007', '"site:007" is not a cursor: its seq has leading zeros (write site:7).'],
  ['leading zeros of a run seq', 'run:001:01', '"run:001:01" is not a cursor: its seq has leading zeros (write run:001:1).'],
  ['an unknown run', 'run:002:1', 'run:002:1 names no recorded event of this site directory (no run 002 in its timeline).'],
  ['a run id in another case', 'run:R1:1', 'run:R1:1 names no recorded event of this site directory (no run R1 in its timeline).'],
  ['beyond a run\'s last seq', 'run:001:3', 'run:001:3 is beyond the last seq recorded in run 001 (2).'],
  ['beyond the site\'s last seq', 'site:4', 'site:4 is beyond the last seq recorded in the site (3).'],
  ['the kind in capitals', 'SITE:1', '"SITE:1" is not a cursor: it must be site:<seq> or run:<run id>:<seq>, such as site:1042 or run:014:17.'],
  ['a bare number', '42', '"42" is not a cursor: it must be site:<seq> or run:<run id>:<seq>, such as site:1042 or run:014:17.'],
  ['a record id of a run', '001:1', '"001:1" is not a cursor: it must be site:<seq> or run:<run id>:<seq>, such as site:1042 or run:014:17.'],
  ['site: with no seq', 'site:', '"site:" has no seq after its last ":".'],
  ['run: with no seq', 'run:001:', '"run:001:" has no seq after its last ":".'],
  ['a run cursor without its seq', 'run:001', '"run:001" has no seq: a run cursor is run:<run id>:<seq>, such as run:014:17.'],
  ['an empty run id', 'run::1', '"run::1" does not name a run id: "" is not 1-128 letters, digits, ".", "_" or "-".'],
  ['a run id holding /', 'run:a/b:1', '"run:a/b:1" does not name a run id: "a/b" is not 1-128 letters, digits, ".", "_" or "-".'],
  ['extra colons in a run cursor', 'run:a:b:1', '"run:a:b:1" is not a cursor: a run id never holds ":" (a run cursor is run:<run id>:<seq>, such as run:014:17).'],
  ['extra colons in a site cursor', 'site:1:2', '"site:1:2" is not a cursor: a site cursor is site:<seq>, such as site:1042.'],
  ['a space before', ' site:1', '" site:1" is not a cursor: it must be site:<seq> or run:<run id>:<seq>, such as site:1042 or run:014:17.'],
  ['percent signs left as they are', 'run%3A001%3A1', '"run%3A001%3A1" is not a cursor: it must be site:<seq> or run:<run id>:<seq>, such as site:1042 or run:014:17.'],
];

async function recorded(url: string): Promise<void> {
  await postEvent(url, { type: 'w', data: 1 });
  await request(url, '/run/start', { body: { run_id: '001' } });
  await postEvent(url, { type: 'w', data: 2 });
  await postEvent(url, { type: 'w', data: 3 });
  await request(url, '/run/stop', { method: 'POST' });
  await postEvent(url, { type: 'w', data: 4 });
  await postEvent(url, { type: 'w', data: 5 });
}

test('every cursor edge is answered the same way as cursor, since and Last-Event-ID', () => withTestDaemon({}, async (d) => {
  await recorded(d.url);
  for (const [name, text, expected] of CURSORS) {
    const history = await request(d.url, `/history?cursor=${encodeURIComponent(text)}`);
    if (Array.isArray(expected)) {
      assert.equal([history.status, history.json.events.map((e: { seq: number }) => e.seq)], [200, expected], name);
      continue;
    }
    assert.equal([history.status, history.json], [422, { detail: `cursor ${expected}`, code: 'INVALID_CURSOR' }], `${name} (cursor)`);
    const since = await request(d.url, `/stream?since=${encodeURIComponent(text)}`);
    assert.equal([since.status, since.json], [422, { detail: `since ${expected}`, code: 'INVALID_CURSOR' }], `${name} (since)`);
    if (text.startsWith(' ')) continue; // a header value's leading space is not part of it (HTTP)
    const header = await request(d.url, '/stream', { headers: { 'last-event-id': text } });
    assert.equal([header.status, header.json], [422, { detail: `Last-Event-ID ${expected}`, code: 'INVALID_CURSOR' }], `${name} (Last-Event-ID)`);
  }
}));

// [name, query, status, detail]: how an empty or encoded cursor parameter is taken
const PARAMETERS: [string, string, number, string | number[]][] = [
  ['an empty cursor', '/history?cursor=', 422, 'cursor is empty; it must be a cursor such as site:1042 or run:014:17.'],
  ['an empty since', '/stream?since=', 422, 'since is empty; it must be a cursor such as site:1042 or run:014:17.'],
  ['a percent-encoded cursor is decoded', '/history?cursor=run%3A001%3A2', 200, [2, 3]],
  ['a cursor twice', '/history?cursor=site:1&cursor=site:2', 422, 'cursor is given more than once.'],
];

test('an empty cursor parameter is refused; a percent-encoded one is decoded like any value', () => withTestDaemon({}, async (d) => {
  await recorded(d.url);
  for (const [name, path, status, expected] of PARAMETERS) {
    const answer = await request(d.url, path);
    if (Array.isArray(expected)) assert.equal([answer.status, answer.json.events.map((e: { seq: number }) => e.seq)], [status, expected], name);
    else assert.equal([answer.status, answer.json?.detail], [status, expected], name);
  }
}));

test.run();
