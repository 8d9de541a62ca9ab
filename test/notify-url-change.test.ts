import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { alarmSite } from './helpers/alarm-config.js';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';
import { startWebhook } from './helpers/webhook.js';

// A webhook's URL fixed (its default name, made of a hash of the URL, changes): the daemon says
// at start that the old name's cursor holds undelivered escalations and how to carry them over;
// `name` set to the old name sends them to the new URL; a cursor of no sink older than 30 days
// is removed at start (docs/alarms.md "When the URL changes").

const ALARM = '[[alarm]]\nid = "power"\nseverity = "critical"\nwhen = "power.data.v < 200"\nescalate_after = "1s"\nmessage = "mains lost"\n';
const nameOf = (url: string) => `notify-http-127.0.0.1-${new URL(url).port}-${createHash('sha256').update(url).digest('hex').slice(0, 8)}`;

test('a URL changed: the old cursor named with its waiting escalation; name = the old name delivers it; a month-old one removed', async () => {
  const hook = await startWebhook((_n, p) => (p === '/new/token' ? 200 : 503));
  const [oldUrl, newUrl] = [hook.url().replace('/hook', '/old/token'), hook.url().replace('/hook', '/new/token')];
  const { dir, site, args } = alarmSite('');
  const configFile = args[1]!;
  const write = (notify: string) => fs.writeFileSync(configFile, `${ALARM}\n[[notify]]\n${notify}retry_min_ms = 50\nretry_max_ms = 100\n`);
  const forwardDir = path.join(site, '.meridian', 'forward');
  let d: ChildDaemon | undefined;
  const stop = async () => {
    d!.child.kill('SIGTERM');
    assert.is(await d!.exited, 0);
  };
  try {
    // the old URL answers 503 for ever: the escalation waits behind its cursor
    write(`url = "${oldUrl}"\n`);
    d = await spawnDaemon({ siteDir: site, args });
    await postEvent(d.url, { type: 'power', data: { v: 0 } });
    await hook.until((a) => a.length >= 2);
    await stop();
    const tried = hook.attempts.length;

    write(`url = "${newUrl}"\n`);
    d = await spawnDaemon({ siteDir: site, args });
    const warning = `WARN sink cursor ${nameOf(oldUrl)}.cursor.json: no [[sink]] or [[notify]] is named ${nameOf(oldUrl)}; 1 escalation(s) recorded after it were not delivered by it ` +
      `(a webhook whose URL changed: set name = "${nameOf(oldUrl)}" in its [[notify]] table to send them); removed when 30 days old\n`;
    await waitFor('the warning', () => (d!.stderr().includes(warning) ? true : undefined)).catch(() => assert.is(d!.stderr(), warning));
    assert.is(hook.attempts.length, tried, 'the new cursor starts at the end of the log');
    await stop();

    write(`name = "${nameOf(oldUrl)}"\nurl = "${newUrl}"\n`);
    d = await spawnDaemon({ siteDir: site, args });
    await hook.until((a) => a.some((x) => x.status === 200));
    assert.equal(hook.attempts.slice(tried).map((a) => [a.status, a.body.alarm.id]), [[200, 'power']]);
    assert.is(new Set(hook.attempts.map((a) => a.key)).size, 1, 'the same escalation, its key kept');
    await stop();
    assert.ok(d.stderr().includes(`INFO sink cursor ${nameOf(newUrl)}.cursor.json: no [[sink]] or [[notify]] is named ${nameOf(newUrl)}; no escalation waits behind it; removed when 30 days old\n`), d.stderr());
    assert.not.ok(d.stderr().includes('WARN sink cursor'), d.stderr());

    // the new URL's own cursor is now of no sink: a month old, it is removed at start
    const stale = path.join(forwardDir, `${nameOf(newUrl)}.cursor.json`);
    const monthAgo = new Date(Date.now() - 31 * 86_400_000);
    fs.utimesSync(stale, monthAgo, monthAgo);
    d = await spawnDaemon({ siteDir: site, args });
    const removed = `INFO sink cursor ${nameOf(newUrl)}.cursor.json: no sink is named ${nameOf(newUrl)} and it was last written 31 days ago (more than 30); removed\n`;
    await waitFor('the removal', () => (d!.stderr().includes(removed) ? true : undefined));
    assert.equal([fs.existsSync(stale), fs.existsSync(`${stale}.next`)], [false, false]);
    await stop();
  } finally {
    if (d && d.child.exitCode === null) d.child.kill('SIGKILL');
    await hook.close();
    removeDir(dir);
  }
});

test.run();
