import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { answerJudge } from '../cli/current-judge.js';
import { currentTable, envelopePanel } from '../cli/current-text.js';
import { historyColumns, historyRow } from '../cli/history-text.js';
import { summarizeData } from '../table/format.js';
import { indentJson } from '../table/json-layout.js';
import { PALETTES } from '../table/palette.js';

// JSON on the terminal with every token as spelled: the panel of `current TYPE`, and the
// one-line data summaries of the tables (`current`, `history`, the console).

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

// [name, envelope text, summary]
const SUMMARIES: Array<[string, string, string]> = [
  ['numbers as spelled, members in order', String.raw`{"seq":1,"ts":"2026-03-17T20:02:00.000Z","type":"w","data":{"t":-10.0,"big":12345678901234567890,"2":1E+2},"meta":{}}`,
    't=-10.0 big=12345678901234567890 2=1E+2'],
  ['a bare string decoded, another kept as spelled', String.raw`{"seq":1,"ts":"2026-03-17T20:02:00.000Z","type":"w","data":{"s":"\u00e9t\u00e9","q":"a b\/"},"meta":{}}`,
    String.raw`s=été q="a b\/"`],
  ['a scalar', String.raw`{"seq":1,"ts":"2026-03-17T20:02:00.000Z","type":"w","data":1e400,"meta":{}}`, '1e400'],
  ['nested and empty', String.raw`{"seq":1,"ts":"2026-03-17T20:02:00.000Z","type":"w","data":{"a":{"b":[1.0]},"e":{}},"meta":{}}`, 'a={"b":[1.0]} e={}'],
  ['an empty object', String.raw`{"seq":1,"ts":"2026-03-17T20:02:00.000Z","type":"w","data":{},"meta":{}}`, '{}'],
];

for (const [name, text, summary] of SUMMARIES) {
  test(`summaries from the daemon's text: ${name}`, () => {
    const envelope = JSON.parse(text);
    assert.is(summarizeData(envelope.data, text), summary);
    assert.is(historyRow(envelope, historyColumns(120, [envelope]), text), `2026-03-17T20:02:00.000Z    1  -    ${summary}`);
    const table = currentTable({ current: { w: envelope } }, { now: Date.parse('2026-03-17T20:03:00.000Z'), limitMs: undefined, columns: 120,
      palette: PALETTES.plain, textOf: () => text });
    assert.is(table.split('\n')[1]!.replace(/ +/g, ' '), ` w 1m00s 1 - ${summary}`, 'the columns, spaces squeezed');
  });
}

test.run();
