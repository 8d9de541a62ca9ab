import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfigFile } from '../lib/config-file.js';
import { ConfigError } from '../lib/errors.js';
import { resolveSafety } from '../daemon/safety/config.js';
import { cli } from './helpers/cli.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The [safety] section checked at start-up: every mistake a ConfigError naming the key's path;
// the real CLI refuses to start on one (exit 2) before touching the site directory.

const resolve = (toml: string) => resolveSafety(parseConfigFile(toml, 'f.toml').safety, 'f.toml');

const rows: Array<[name: string, toml: string, message: string]> = [
  ['not a table', 'safety = 1', 'f.toml: safety must be a table ([safety]); got 1'],
  ['unknown key', '[safety]\nsafe = true', 'f.toml: safety: safe must be a known key (required, safe_for, rule; see docs/safety.md); got "safe"'],
  ['misspelt section', '[saftey]\nrequired = []', 'f.toml: saftey must be a known key ([[sink]], [safety], [[alarm]], [[notify]], [conditions], [boltwood], [alpaca]); got "saftey"'],
  ['required not a list', '[safety]\nrequired = "weather"', 'f.toml: safety: required must be an array of type names; got "weather"'],
  ['required empty name', '[safety]\nrequired = [""]', 'f.toml: safety: required must be an array of type names (1-256 characters, no control characters); got ""'],
  ['required not a string', '[safety]\nrequired = [1]', 'f.toml: safety: required must be an array of type names (1-256 characters, no control characters); got 1'],
  ['safe_for', '[safety]\nsafe_for = "15 minutes"', 'f.toml: safety: safe_for must be a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, from 0 to 7 days; got "15 minutes"'],
  ['safe_for too long', '[safety]\nsafe_for = "8d"', 'f.toml: safety: safe_for must be a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, from 0 to 7 days; got "8d"'],
  ['rule not a list', '[safety]\nrule = 1', 'f.toml: safety: rule must be an array of tables ([[safety.rule]]); got 1'],
  ['rule without a name', '[safety]\n[[safety.rule]]\nwhen = "a.data.x > 1"', 'f.toml: safety rule 1: name must be 1-64 letters, digits, spaces, ".", "_" or "-", starting with a letter or digit; got "(missing)"'],
  ['rule name with a colon', '[safety]\n[[safety.rule]]\nname = "a:b"\nwhen = "a.data.x > 1"', 'f.toml: safety rule 1: name must be 1-64 letters, digits, spaces, ".", "_" or "-", starting with a letter or digit; got "a:b"'],
  ['rule unknown key', '[safety]\n[[safety.rule]]\nname = "w"\nwhen = "a.data.x > 1"\nseverity = "critical"', 'f.toml: safety rule 1 (w): severity must be a known key (name, when, clear, for; see docs/safety.md); got "severity"'],
  ['rule without when', '[safety]\n[[safety.rule]]\nname = "w"', 'f.toml: safety rule 1 (w): when must be an expression in a string; got "(missing)"'],
  ['bad when', '[safety]\n[[safety.rule]]\nname = "w"\nwhen = "a.data.x >"', 'f.toml: safety rule 1 (w): when must be an expression of the rule language (expected expression after > at the end; see docs/safety.md); got "a.data.x >"'],
  ['bad clear, second rule', '[safety]\n[[safety.rule]]\nname = "w"\nwhen = "a.data.x > 1"\n[[safety.rule]]\nname = "d"\nwhen = "a.data.y > 1"\nclear = "a.data.y < foo"',
    'f.toml: safety rule 2 (d): clear must be an expression of the rule language (unknown name foo (a field is written TYPE.data.FIELD) at position 12; see docs/safety.md); got "a.data.y < foo"'],
  ['bad for', '[safety]\n[[safety.rule]]\nname = "w"\nwhen = "a.data.x > 1"\nfor = -1', 'f.toml: safety rule 1 (w): for must be a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, from 0 to 7 days; got -1'],
  // a rule reading the daemon's own meridian.* events would feed back into itself: every way to name one
  ...([
    ['when', 'a field', 'meridian.safety.data.safe', 'meridian.safety'],
    ['when', 'a meta field', 'meridian.alarm.meta.x > 1', 'meridian.alarm'],
    ['when', 'age()', 'age(meridian.stale) > 60', 'meridian.stale'],
    ['when', 'stale() with a string', 'stale("meridian.fresh")', 'meridian.fresh'],
    ['when', 'a quoted type', '"meridian.escalation".data.id == "w"', 'meridian.escalation'],
    ['when', 'a type that may be meridian.data', 'meridian.data.data.x > 1', 'meridian.data'],
    ['clear', 'in clear, beside another type', 'w.data.x < 1 || meridian.safety.data.safe', 'meridian.safety'],
  ] as const).map(([key, how, expr, type]): [string, string, string] => [`reads ${type} (${how})`,
    `[safety]\n[[safety.rule]]\nname = "self"\nwhen = ${JSON.stringify(key === 'when' ? expr : 'w.data.x > 1')}${key === 'clear' ? `\nclear = ${JSON.stringify(expr)}` : ''}`,
    `f.toml: safety rule 1 (self): ${key} must be an expression reading no meridian.* type (it reads ${type}, which the daemon records from the rules' own results: a rule reading it would feed back into itself); got ${JSON.stringify(expr)}`]),
  ['required names meridian.safety', '[safety]\nrequired = ["w", "meridian.safety"]',
    'f.toml: safety: required must be a list naming no meridian.* type (it reads meridian.safety, which the daemon records from the rules\' own results: a rule reading it would feed back into itself); got ["w","meridian.safety"]'],
  ['duplicate names', '[safety]\n[[safety.rule]]\nname = "w"\nwhen = "a.data.x > 1"\n[[safety.rule]]\nname = "w"\nwhen = "a.data.y > 1"', 'f.toml: safety: rule name must be unique across [[safety.rule]] tables; got "w"'],
];

test('[safety] mistakes: one sentence naming the key (rows)', () => {
  for (const [name, toml, message] of rows) {
    assert.throws(() => resolve(toml), (e: unknown) => e instanceof ConfigError && e.message === message, `${name}: ${(() => { try { resolve(toml); return 'no error'; } catch (e) { return (e as Error).message; } })()}`);
  }
});

test('a good [safety] section, and none', () => {
  const spec = resolve('[safety]\nrequired = ["weather", "power", "weather"]\nsafe_for = "15m"\n[[safety.rule]]\nname = "wind"\nwhen = "weather.data.w > 40"\nclear = "weather.data.w < 30"\nfor = 90\n');
  assert.equal([spec?.required, spec?.safeForMs, spec?.rules.map((r) => [r.name, r.condition.when.text, r.condition.clear?.text, r.condition.forMs])],
    [['weather', 'power'], 900_000, [['wind', 'weather.data.w > 40', 'weather.data.w < 30', 90_000]]]);
  assert.is(resolve('[[sink]]\nurl = "http://h/in"\n'), undefined);
});

test('the real daemon refuses a bad expression at start-up: exit 2, the rule and the position, nothing created', async () => {
  const dir = tempDir();
  try {
    const config = path.join(dir, 'meridian.toml');
    fs.writeFileSync(config, '[safety]\nrequired = ["weather"]\n[[safety.rule]]\nname = "wind"\nwhen = "weather.data.wind_kmh >> 40"\n');
    const site = path.join(dir, 'site');
    const run = await cli(['run', '--port', '1', '--site-dir', site, '--config', config]);
    assert.equal([run.code, run.stdout, run.stderr], [2, '', `telemetry: ${config} line 5: safety rule 1 (wind): when must be an expression of the rule language (the operator >> is not part of the language at position 23; see docs/safety.md); got "weather.data.wind_kmh >> 40" (see "telemetry run --help")\n`]);
    assert.is(fs.existsSync(site), false);
  } finally {
    removeDir(dir);
  }
});

test.run();
