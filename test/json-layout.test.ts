import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { answerJudge } from '../cli/current-judge.js';
import { envelopePanel } from '../cli/current-text.js';
import { indentJson } from '../table/json-layout.js';
import { PALETTES } from '../table/palette.js';

// JSON laid out for the terminal with every token as spelled (the panel of `current TYPE`).

// [name, text, laid out]
const ROWS: Array<[string, string, string]> = [
  ['a number as spelled', '-10.0', '-10.0'],
  ['a string with escapes', String.raw`"\u00e9\/\""`, String.raw`"\u00e9\/\""`],
  ['an object', '{"t":1.0,"big":12345678901234567890,"inf":1e400}', '{\n  "t": 1.0,\n  "big": 12345678901234567890,\n  "inf": 1e400\n}'],
  ['nested, empty containers kept', '{"a":[1E+2,{}],"b":[],"c":{"d":[[]]}}',
    '{\n  "a": [\n    1E+2,\n    {}\n  ],\n  "b": [],\n  "c": {\n    "d": [\n      []\n    ]\n  }\n}'],
  ['whitespace dropped, also inside empty containers', '{ "a" : [ ] ,\t"b":{ }}', '{\n  "a": [],\n  "b": {}\n}'],
  ['brackets and commas inside strings untouched', '["a,[b]:{c}\\"", "x"]', '[\n  "a,[b]:{c}\\"",\n  "x"\n]'],
];

for (const [name, text, expected] of ROWS) {
  test(`indentJson: ${name}`, () => assert.is(indentJson(text), expected));
}

test('indentJson lays out as JSON.stringify(value, null, 2) wherever decoding respells nothing', () => {
  for (const value of [{ a: [1, { b: 'c' }, [], {}], d: null, e: true }, [[[]]], 'x', 0, { '': { ' ': [1.5] } }]) {
    assert.is(indentJson(JSON.stringify(value)), JSON.stringify(value, null, 2));
  }
});

test('the panel of current TYPE shows data and meta as the daemon sent them', () => {
  const text = String.raw`{"seq":7,"ts":"2026-03-17T20:02:00.000Z","type":"w","data":{"t":-10.0,"s":"\u00e9"},"meta":{"n":1.50}}`;
  const envelope = JSON.parse(text);
  const judge = answerJudge({ current: { w: envelope } }, { now: Date.parse('2026-03-17T20:03:00.000Z'), limitMs: undefined });
  assert.is(envelopePanel(envelope, judge, { palette: PALETTES.plain }, text), [
    'w',
    '  seq   7',
    '  ts    2026-03-17T20:02:00.000Z (1m00s ago)',
    '  run   -',
    '  data  {',
    '          "t": -10.0,',
    String.raw`          "s": "\u00e9"`,
    '        }',
    '  meta  {',
    '          "n": 1.50',
    '        }',
    '',
  ].join('\n'));
});

test.run();
