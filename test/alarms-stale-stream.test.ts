import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveConfigSections } from '../daemon/config-sections.js';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';

// A stale alarm is raised within 1 s of its input's limit passing (an explicit --max-age),
// with the daemon's periodic looks turned off so that only the alarm's own timer can do it;
// alarm frames on /stream only when asked for; config mistakes name the key.

const STALE = `
[[alarm]]
id = "weather-stale"
severity = "critical"
when = "stale(weather)"
message = "no weather"

[[alarm]]
id = "wind"
severity = "warning"
when = "weather.data.wind > 40"
`;

test('stale(weather): raised within 1 s of the limit passing (--max-age weather=1.5), not before; a field of it is then unknown', () => withTestDaemon(
  { config: STALE, flags: { maxAge: 'weather=1.5' }, freshnessIntervalMs: 0 }, async (d) => {
    const sse = new SseReader(d.url, '/stream?type=meridian.alarm');
    try {
      await sse.live();
      const posted = (await postEvent(d.url, { type: 'weather', data: { wind: 10 } })).json;
      // the type had no reading at start: stale, so raised at once (the snapshot); the reading clears it
      await sse.until('clear, raise', () => sse.data('event').length >= 2);
      assert.equal(sse.data('snapshot').map((e) => [e.data.id, e.data.to]), [['weather-stale', 'unack']]);
      const [cleared, raised] = sse.data('event');
      assert.equal([cleared.data.from, cleared.data.to, raised.data.from, raised.data.to], ['unack', 'normal', 'normal', 'unack']);
      const late = Date.parse(raised.ts) - (Date.parse(posted.ts) + 1500);
      assert.ok(late > 0 && late < 1000, `raised ${late} ms after the limit passed`);
      const wind = (await request(d.url, '/alarms/wind')).json;
      assert.match(wind.unknown, /^weather is stale \(age [\d.]+ s, limit 1\.5 s\)$/);
      assert.equal([wind.state, wind.value], ['normal', 10]);
    } finally {
      sse.close();
    }
  }));

test('/stream?alarms=true: every alarm before `live`, then an `alarm` frame per change; never without asking', () => withTestDaemon(
  { config: STALE }, async (d) => {
    const plain = new SseReader(d.url, '/stream');
    const asked = new SseReader(d.url, '/stream?alarms=true&type=weather');
    try {
      await Promise.all([plain.live(), asked.live()]);
      const ids = (frames: { event?: string }[]) => frames.map((f) => f.event);
      assert.equal(ids(asked.frames), ['alarm', 'alarm', 'live']);
      assert.equal(asked.data('alarm'), (await request(d.url, '/alarms')).json.alarms);
      await postEvent(d.url, { type: 'weather', data: { wind: 50 } });
      await asked.until('two alarm changes and the event', () => asked.named('alarm').length >= 4 && asked.named('event').length >= 1);
      const changes = asked.data('alarm').slice(2).map((a) => `${a.id} ${a.state}`).sort();
      assert.equal(changes, ['weather-stale normal', 'wind unack']);
      await plain.until('the events', () => plain.named('event').length >= 3);
      assert.equal(plain.named('alarm'), []);
      const refused = await request(d.url, '/stream?alarms=maybe');
      assert.equal([refused.status, refused.json], [422, { detail: 'alarms must be true or false; got "maybe".', code: 'INVALID_QUERY' }]);
    } finally {
      plain.close();
      asked.close();
    }
  }));

test('config mistakes: one sentence naming the key (rows)', () => {
  const rows: [string, string, string][] = [
    ['no id', '[[alarm]]\nseverity = "warning"\nwhen = "a.data.x > 1"', 'f.toml: alarm 1: id must be 1-64 of a-z, 0-9, ".", "_", "-", starting with a letter or digit; got "(missing)"'],
    ['bad id', '[[alarm]]\nid = "Wind"\nseverity = "warning"\nwhen = "a.data.x > 1"', 'f.toml: alarm 1: id must be 1-64 of a-z, 0-9, ".", "_", "-", starting with a letter or digit; got "Wind"'],
    ['duplicate id', '[[alarm]]\nid = "w"\nseverity = "warning"\nwhen = "a.data.x > 1"\n[[alarm]]\nid = "w"\nseverity = "warning"\nwhen = "a.data.x > 2"', 'f.toml: alarm 2: id must be unique across alarms; got "w"'],
    ['unknown key', '[[alarm]]\nid = "w"\nseverity = "warning"\nwhen = "a.data.x > 1"\nlatched = true', 'f.toml: alarm 1: latched must be a known key of an [[alarm]] (id, severity, when, clear, for, latch, escalate_after, message, level); got "latched"'],
    ['bad severity', '[[alarm]]\nid = "w"\nseverity = "high"\nwhen = "a.data.x > 1"', 'f.toml: alarm 1 (w): severity must be "warning", "serious" or "critical"; got "high"'],
    ['no when', '[[alarm]]\nid = "w"\nseverity = "warning"', 'f.toml: alarm 1 (w): when must be an expression (a string); got "(missing)"'],
    ['bad expression', '[[alarm]]\nid = "w"\nseverity = "warning"\nwhen = "a.data.x >"', 'f.toml line 4: alarm 1 (w): when must be an expression of the rule language'],
    ...[['when', 'meridian.alarm.data.to == "normal"', 'meridian.alarm'], ['when', 'age(meridian.safety) > 1', 'meridian.safety'],
      ['when', 'stale("meridian.stale")', 'meridian.stale'], ['when', 'meridian.escalation.meta.x == 1', 'meridian.escalation']].map(([key, expr, type]): [string, string, string] => [
      `reads ${type!}`, `[[alarm]]\nid = "l"\nseverity = "warning"\n${key!} = ${JSON.stringify(expr)}`,
      `f.toml line 4: alarm 1 (l): when must be an expression reading no meridian.* type (it reads ${type!}, which the daemon records from the rules' own results: a rule reading it would feed back into itself); got ${JSON.stringify(expr)}`]),
    ['clear reads meridian.fresh', '[[alarm]]\nid = "l"\nseverity = "warning"\nwhen = "w.data.x > 1"\nclear = "stale(meridian.fresh)"',
      'f.toml line 5: alarm 1 (l): clear must be an expression reading no meridian.* type (it reads meridian.fresh, which the daemon records from the rules\' own results: a rule reading it would feed back into itself); got "stale(meridian.fresh)"'],
    ['a level reads meridian.alarm', '[[alarm]]\nid = "l"\n[[alarm.level]]\nseverity = "warning"\nwhen = "meridian.alarm.data.x > 1"', 'f.toml line 5: alarm 1 (l): level 1: when must be an expression reading no meridian.* type'],
    ['bad for', '[[alarm]]\nid = "w"\nseverity = "warning"\nwhen = "a.data.x > 1"\nfor = "soon"', 'f.toml: alarm 1 (w): for must be a span of time'],
    ['escalate_after of 0s: its whole range', '[[notify]]\nurl = "http://h/x"\n[[alarm]]\nid = "w"\nseverity = "warning"\nwhen = "a.data.x > 1"\nescalate_after = "0s"', 'f.toml: alarm 1 (w): escalate_after must be a span of time from 1s to 7 days; got "0s"'],
    ['latch not boolean', '[[alarm]]\nid = "w"\nseverity = "warning"\nwhen = "a.data.x > 1"\nlatch = "yes"', 'f.toml: alarm 1 (w): latch must be true or false; got "yes"'],
    ['escalate_after without a notify', '[[alarm]]\nid = "w"\nseverity = "warning"\nwhen = "a.data.x > 1"\nescalate_after = "10m"', 'f.toml: alarm 1 (w): escalate_after must be given only with a [[notify]] table to send escalations to; got "10m"'],
    ['levels and severity', '[[alarm]]\nid = "w"\nseverity = "warning"\n[[alarm.level]]\nseverity = "warning"\nwhen = "a.data.x > 1"', 'f.toml: alarm 1 (w): severity must be absent when [[alarm.level]] tables give the levels; got "warning"'],
    ['two levels of one severity', '[[alarm]]\nid = "w"\n[[alarm.level]]\nseverity = "warning"\nwhen = "a.data.x > 1"\n[[alarm.level]]\nseverity = "warning"\nwhen = "a.data.x > 2"', 'f.toml: alarm 1 (w): level must be levels of different severities; got ["warning","warning"]'],
    ['notify not http', '[[notify]]\nurl = "mqtt://b"', 'f.toml: notify 1 url must be an http:// or https:// URL; got "mqtt://b"'],
    ['notify format', '[[notify]]\nurl = "http://h/x"\nformat = "xml"', 'f.toml: notify 1 format must be "json", "ntfy" or "slack"; got "xml"'],
    ['notify unknown key', '[[notify]]\nurl = "http://h/x"\nbatch_records = 5', 'f.toml: notify 1: batch_records must be a known key of a [[notify]] table (name, url, format, timeout_ms, retry_min_ms, retry_max_ms, failing_after_s, headers, header_env); got "batch_records"'],
    ['notify named as a sink', '[[sink]]\nname = "x"\nurl = "http://h/a"\n[[notify]]\nname = "x"\nurl = "http://h/b"', 'sink name must be unique across [[sink]] and [[notify]] (it names the cursor file); got "x"'],
  ];
  rows.push(['an explicit message over 256 characters', `[[alarm]]\nid = "w"\nseverity = "warning"\nwhen = "a.data.x > 1"\nmessage = "${'m'.repeat(257)}"`,
    'f.toml: alarm 1 (w): message must be a string of at most 256 characters; got "m']);
  for (const [name, toml, message] of rows) {
    assert.throws(() => resolveConfigSections({ configText: toml, configFile: 'f.toml' }, {}),
      (e: Error) => e.name === 'ConfigError' && e.message.startsWith(message), `${name}: ${(() => { try { resolveConfigSections({ configText: toml, configFile: 'f.toml' }, {}); return 'no error'; } catch (e) { return (e as Error).message; } })()}`);
  }
});

test('the default message of a long when is never refused: "<id>: <when>" whole', () => {
  const when = Array.from({ length: 40 }, (_, i) => `a.data.x${i} > ${i}`).join(' || ');
  const sections = resolveConfigSections({ configText: `[[alarm]]\nid = "w"\nseverity = "warning"\nwhen = "${when}"`, configFile: 'f.toml' }, {});
  assert.ok(when.length > 256);
  assert.is(sections.alarms[0]?.message, `w: ${when}`);
});

test.run();
