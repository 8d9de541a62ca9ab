import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../lib/errors.js';
import { expectedTypes, formatMaxAge, globMatches, maxAgeOf, parseMaxAge, rulesFromWire, rulesToWire } from '../lib/max-age.js';

// The --max-age rules (lib/max-age.ts): parsing, which rule applies to a type, the wire form.

const SPEC = 'weather=180, power=90,camera.*=300,camera.ccd*=120,*=600,debug.*=none';

// [type, limit in seconds (undefined: none)]
const LIMITS: Array<[string, number | undefined]> = [
  ['weather', 180],
  ['power', 90],
  ['camera.temp', 300],
  ['camera.ccd_temp', 120],
  ['camera', 600],
  ['debug.x', undefined],
  ['weather2', 600],
  ['meridian.stale', undefined],
  ['meridian.anything', undefined],
];

for (const [type, limit] of LIMITS) {
  test(`maxAgeOf(${JSON.stringify(type)}) is ${limit}`, () => {
    assert.is(maxAgeOf(parseMaxAge(SPEC, '--max-age'), type), limit);
  });
}

test('rules: exact names first by name, then globs by literal characters, whatever the order given', () => {
  const rules = parseMaxAge(SPEC, '--max-age');
  assert.is(formatMaxAge(rules), 'power=90,weather=180,camera.ccd*=120,camera.*=300,debug.*=none,*=600');
  assert.equal(parseMaxAge('*=600,debug.*=none,camera.ccd*=120,camera.*=300,power=90,weather=180', 'x'), rules);
  assert.equal(rulesFromWire(rulesToWire(rules)), rules);
  assert.equal(expectedTypes(rules), ['power', 'weather']);
  assert.equal(parseMaxAge('600', 'x'), [{ pattern: '*', seconds: 600 }]);
  assert.equal(parseMaxAge('a=0.5,b=OFF', 'x'), [{ pattern: 'a', seconds: 0.5 }, { pattern: 'b', seconds: null }]);
});

// [pattern, type, matches]
const GLOBS: Array<[string, string, boolean]> = [
  ['*', '', true], ['camera.*', 'camera.', true], ['camera.*', 'camera', false], ['*.temp', 'ccd.temp', true],
  ['a*b*c', 'abc', true], ['a*b*c', 'aXbYc', true], ['a*b*c', 'acb', false], ['ab*ba', 'aba', false], ['*x*', 'x', true],
];

for (const [pattern, type, matches] of GLOBS) {
  test(`globMatches(${JSON.stringify(pattern)}, ${JSON.stringify(type)}) is ${matches}`, () => {
    assert.is(globMatches(pattern, type), matches);
  });
}

const HEAD = 'x must be PATTERN=SECONDS items separated by commas (weather=180,power=90,*=600), or seconds for every type';
// [spec, message]
const REFUSED: Array<[string, string]> = [
  ['', `${HEAD}; got ""`],
  ['a=1,,b=2', `${HEAD}; got "a=1,,b=2"`],
  ['=5', `${HEAD}; an item has no pattern; got "=5"`],
  ['a=0', `${HEAD}; the seconds of "a" must be a positive number or none; got "a=0"`],
  ['a=-1', `${HEAD}; the seconds of "a" must be a positive number or none; got "a=-1"`],
  ['a=1e3', `${HEAD}; the seconds of "a" must be a positive number or none; got "a=1e3"`],
  ['a=3m', `${HEAD}; the seconds of "a" must be a positive number or none; got "a=3m"`],
  ['a=1,a=2', `${HEAD}; "a" is given twice; got "a=1,a=2"`],
  ['5,*=6', `${HEAD}; "*" is given twice; got "5,*=6"`],
];

for (const [spec, message] of REFUSED) {
  test(`parseMaxAge refuses ${JSON.stringify(spec)}`, () => {
    assert.throws(() => parseMaxAge(spec, 'x'), (error: unknown) => error instanceof ConfigError && error.message === message);
  });
}

test.run();
