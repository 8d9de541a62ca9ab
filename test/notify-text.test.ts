import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { notifyRequest, type Escalation } from '../daemon/forward/notify.js';

// The text bodies of an escalation (ntfy's plain body, Slack's `text`) are one line whatever
// the configured message holds (hostile tester O's minor item: a message's newline made ntfy's
// body three lines, its `key` line no longer the second); the JSON body keeps the data as
// recorded.

const E: Escalation = {
  key: 'dome-1/site:42/2026-11-25T12:00:00.000Z', unit: 'dome-1', ts: '2026-11-25T12:00:00.000Z',
  data: { id: 'wind', severity: 'critical', state: 'unack', message: 'wind high\nclose the roof\tnow\u001b[2J', raised_at: '2026-11-25T11:55:00.000Z', value: 45 },
  dataText: '{"id":"wind","severity":"critical","state":"unack","message":"wind high\\nclose the roof\\tnow\\u001b[2J","raised_at":"2026-11-25T11:55:00.000Z","value":45}',
  valueText: '45',
};
const LINE = 'CRITICAL alarm wind on dome-1: wind high close the roof now\uFFFD[2J (value 45, raised 2026-11-25T11:55:00.000Z, unacknowledged)';

test('ntfy: the line, then the key; Slack: the line; JSON: the data as recorded', () => {
  assert.is(notifyRequest('ntfy', E).body, `${LINE}\nkey ${E.key}`);
  assert.equal(JSON.parse(notifyRequest('slack', E).body), { text: LINE, unit: 'dome-1', idempotency_key: E.key });
  assert.equal(JSON.parse(notifyRequest('json', E).body).alarm, JSON.parse(E.dataText));
});

test.run();
