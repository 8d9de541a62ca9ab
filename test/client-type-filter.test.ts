import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient, TelemetryClientError } from '../client/index.js';
import { ROOT, withTestDaemon } from './helpers/daemon.js';
import { rejection } from './helpers/rejection.js';

// The client's type filter, built in one place (client/type-query.ts), against the real
// daemon: names holding the query string's own characters reach /current, /history and
// /stream as sent, in every row the same way.

const TYPES = ['a,b', 'a', 'b', 'x&y=1', 'p%q', 'dome status', 'wéather+1', '#?/'];

// [name, filter, the types answered]
const FILTERS: [string, string[], string[]][] = [
  ['a comma inside a name', ['a,b'], ['a,b']],
  ['two names, not the one holding their comma', ['a', 'b'], ['a', 'b']],
  ['& and = inside a name', ['x&y=1'], ['x&y=1']],
  ['a percent sign', ['p%q'], ['p%q']],
  ['a space, a plus and a non-ASCII letter', ['dome status', 'wéather+1'], ['dome status', 'wéather+1']],
  ['#, ? and /', ['#?/'], ['#?/']],
];

test('current(), history() and stream() send the same type filter: every name arrives as sent', () => withTestDaemon({}, async (d) => {
  const client = new TelemetryClient({ baseUrl: d.url });
  try {
    for (const type of TYPES) await client.postEvent(type, type);
    for (const [name, types, expected] of FILTERS) {
      const current = await client.current({ types });
      assert.equal(Object.keys(current.current).sort(), [...expected].sort(), `${name} (current)`);
      const history: unknown[] = [];
      for await (const page of client.history({ types })) history.push(...page.events.map((e) => e.type));
      assert.equal(history, TYPES.filter((t) => expected.includes(t)), `${name} (history)`);
      const snapshot: string[] = [];
      for await (const message of client.stream({ types })) {
        if (message.kind === 'live') break;
        if (message.kind === 'snapshot') snapshot.push(message.envelope.type);
      }
      assert.equal(snapshot.sort(), [...expected].sort(), `${name} (stream)`);
    }
  } finally {
    client.close();
  }
}));

test('an empty list is sent as type= by all three and refused by the daemon alike', () => withTestDaemon({}, async (d) => {
  const client = new TelemetryClient({ baseUrl: d.url });
  try {
    const detail = 'type must be a list of event types (1-256 characters, no control characters, comma-separated); got "".';
    const errors = [
      await rejection(client.current({ types: [] })),
      await rejection(client.history({ types: [] }).next()),
      await rejection(client.stream({ types: [] }).next()),
    ];
    for (const error of errors) {
      assert.instance(error, TelemetryClientError);
      assert.equal([(error as TelemetryClientError).statusCode, (error as TelemetryClientError).detail], [422, detail]);
    }
  } finally {
    client.close();
  }
}));

test('the type filter is spelled in one file of the client', () => {
  const dir = path.join(ROOT, 'client');
  const spelling = fs.readdirSync(dir).filter((name) => /type=|encodeURIComponent\)\.join/.test(fs.readFileSync(path.join(dir, name), 'utf8')));
  assert.equal(spelling, ['type-query.ts']);
});

test.run();
