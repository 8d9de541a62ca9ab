import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { alarmSite } from './helpers/alarm-config.js';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';
import { startWebhook } from './helpers/webhook.js';

// A chat or ntfy webhook carries its secret in its path (https://hooks.slack.com/services/T0/B0/XXXX):
// /status and the log show a [[notify]] URL's path as `/***`, and a peer that echoes the path in
// its refusal has it hidden in last_error and in the log (docs/alarms.md "Escalation").

const PATH = '/services/T0A1/B0B2/Zx9SeCrEtHoOk';

test('a webhook path is never shown: /status url and last_error, the log', async () => {
  const hook = await startWebhook((_n, path) => [503, `no hook at ${path} yet`]);
  const url = hook.url().replace('/hook', PATH);
  const { dir, site, args } = alarmSite(`
[[alarm]]
id = "power"
severity = "critical"
when = "power.data.v < 200"
escalate_after = "1s"

[[notify]]
name = "chat"
url = "${url}"
format = "slack"
retry_min_ms = 50
retry_max_ms = 100
`);
  let d: ChildDaemon | undefined;
  try {
    d = await spawnDaemon({ siteDir: site, args });
    await postEvent(d.url, { type: 'power', data: { v: 0 } });
    await hook.until((a) => a.length >= 2);
    const origin = new URL(url).origin;
    const sink = await waitFor('the refusal in /status', async () => {
      const s = (await request(d!.url, '/status')).json.forward.find((f: { name: string }) => f.name === 'chat');
      return s?.last_error ? s : undefined;
    });
    assert.equal([sink.url, sink.last_error], [`${origin}/***`, 'HTTP 503: no hook at *** yet']);
    assert.is(hook.attempts[0]!.headers.host, new URL(url).host);
    assert.ok(d.stderr().includes(`forwarding to ${origin}/***`), d.stderr());
    assert.not.ok(d.stderr().includes('Zx9SeCrEtHoOk'), 'the log never holds the path');
  } finally {
    d?.child.kill('SIGKILL');
    await d?.exited;
    await hook.close();
    removeDir(dir);
  }
});

test('every query value of a webhook is a secret too, whatever its name (?code= of an Azure function): shown as ***, hidden when echoed', async () => {
  const hook = await startWebhook(() => [503, 'bad code AZKEYSECRET7 for k QSECRET42']);
  const url = `${hook.url().replace('/hook', '/api/fire')}?code=AZKEYSECRET7&k=QSECRET42`;
  const { dir, site, args } = alarmSite(`
[[alarm]]
id = "power"
severity = "critical"
when = "power.data.v < 200"
escalate_after = "1s"

[[notify]]
name = "fn"
url = "${url}"
retry_min_ms = 50
retry_max_ms = 100
`);
  let d: ChildDaemon | undefined;
  try {
    d = await spawnDaemon({ siteDir: site, args });
    await postEvent(d.url, { type: 'power', data: { v: 0 } });
    await hook.until((a) => a.length >= 2);
    const origin = new URL(url).origin;
    const sink = await waitFor('the refusal in /status', async () => {
      const s = (await request(d!.url, '/status')).json.forward.find((f: { name: string }) => f.name === 'fn');
      return s?.last_error ? s : undefined;
    });
    assert.equal([sink.url, sink.last_error], [`${origin}/***?code=***&k=***`, 'HTTP 503: bad code *** for k ***']);
    for (const secret of ['AZKEYSECRET7', 'QSECRET42']) assert.not.ok(d.stderr().includes(secret), `the log holds ${secret}`);
  } finally {
    d?.child.kill('SIGKILL');
    await d?.exited;
    await hook.close();
    removeDir(dir);
  }
});

test.run();
