import { test } from 'uvu';
import * as assert from 'uvu/assert';
import v8 from 'node:v8';
import { parseExpression } from '../daemon/rules/compile.js';
import { testSlowly } from '../daemon/rules/evaluate.js';
import { oneByte } from '../daemon/rules/one-byte.js';
import { scopeOf } from '../daemon/rules/scope.js';
import type { ExpressionNode } from '../daemon/rules/syntax.js';
import { FreshnessJudge } from '../daemon/freshness/judge.js';
import { CurrentView } from '../daemon/storage/current-view.js';
import { ManualClock } from './helpers/clock.js';

// The names a rule reads are one-byte strings in V8 (daemon/rules/one-byte.ts), whatever else
// the expression holds: two-byte ones would be looked up and searched for on V8's slow mixed
// paths, and the verdict's reasons built from them would make the recorded events two-byte
// (docs/performance.md, "Fourth round"). V8's serializer says which a string is: tag `"`
// (0x22) one byte a character, `c` (0x63) two.

function bytesPerCharacter(text: string): 1 | 2 {
  const tag = v8.serialize(text)[2];
  if (tag === 0x22) return 1;
  if (tag === 0x63) return 2;
  throw new Error(`not a plain string tag: ${tag}`);
}

/** Every string a compiled expression keeps for its evaluation: types, path names, patterns, literals. */
function strings(node: ExpressionNode): string[] {
  switch (node.kind) {
    case 'literal': return typeof node.value === 'string' ? [node.value] : [];
    case 'reference': return node.candidates.flatMap((c) => [c.type, c.key, ...(c.flat === undefined ? [] : [c.flat]), ...c.path.filter((p): p is string => typeof p === 'string')]);
    case 'negate': case 'not': return strings(node.argument);
    case 'arithmetic': case 'compare': case 'equal': case 'logic': return [...strings(node.left), ...strings(node.right)];
    case 'call': return node.args.flatMap(strings);
    case 'type-call': return [node.type];
  }
}

test('oneByte: the same characters, one byte each when they fit; a text past U+00FF as it is', () => {
  const twoByte = `€${'dome-status'.repeat(3)}`.slice(1);
  assert.is(bytesPerCharacter(twoByte), 2);
  assert.is(oneByte(twoByte), twoByte);
  assert.is(bytesPerCharacter(oneByte(twoByte)), 1);
  assert.is(bytesPerCharacter(oneByte('Zürich')), 1);
  assert.is(oneByte('東京'), '東京');
  assert.is(oneByte(''), '');
});

test('the names an expression reads are one-byte: dashed types, and beside a string literal past U+00FF', () => {
  for (const text of [
    'dome-status.data.wind_kmh > 40 and age(dome-status) < 10',
    'weather-station.data.station == "東京" or weather-station.data["gust ms"] > 20 or stale(weather-station)',
    '"dome status".data.open == true and weather.meta.source != "東京 roof"',
  ]) {
    const compiled = parseExpression(text);
    const kept = [...strings(compiled.root), ...compiled.types].filter((s) => !/[^\u0000-\u00ff]/.test(s));
    assert.ok(kept.length >= 4, text);
    for (const s of kept) assert.is(bytesPerCharacter(s), 1, `${text}: ${JSON.stringify(s)}`);
  }
});

test("an unknown input's reason (the verdict's and the alarms' text) is one-byte", () => {
  const clock = new ManualClock(Date.parse('2026-11-25T12:00:00.000Z'));
  const view = new CurrentView();
  const judge = new FreshnessJudge(view, [], clock);
  const outcome = testSlowly(parseExpression('dome-status.data.open == true or weather.data.note == "東京"'), scopeOf(judge, clock.now()));
  assert.equal(outcome.reasons, ['dome-status is missing (no reading)', 'weather is missing (no reading)']);
  for (const reason of outcome.reasons) assert.is(bytesPerCharacter(reason), 1, reason);
});

test.run();
