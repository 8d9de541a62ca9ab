import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compactText, forEachItem, JsonSyntaxError, scanMembers, setMember } from '../lib/json-text.js';
import { prng } from './helpers/prng.js';

// The JSON text scanner behind exact data: it accepts exactly what JSON.parse accepts, and
// keeps each member's value as spelled, without the whitespace between tokens.

const PIECES = ['{', '}', '[', ']', '"', '\\', ',', ':', ' ', '\n', '\t', '1', '0', '-', '.', 'e', 'E', '+', 'true', 'null', 'false',
  'a', '"k"', '"v"', '\u0001', 'u', '00', '1.5', '"\\u00e9"', '"\\ud800"', '\u2028', '1e400'];
const GOOD = ['{"a": [1, 2, {"b": "c d"}], "e" : 1.0e5 , "f":-0.0}', '{ }', '[1]', '{"x":{"y":[[],{}]}}', '"s"', '{"k":"\\n\\"x\\u0041"}',
  // compact containers of depth 1 and 2 (the regular-expression path)
  '{"t":"w","d":{"a":1.5,"b":-0.0,"c":"x\\"y","e":true,"f":null,"g":1e-7},"m":{}}', '{"d":[1,"a",false,[],{}],"e":{"f":[2,3],"g":{"h":4}}}',
  '{"d":{"a":{"b":[1]}},"e":[[[]]]}'];

test('accepts exactly what JSON.parse accepts (40,000 random and mutated texts)', () => {
  const rand = prng(20261123);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  let valid = 0;
  for (let n = 0; n < 40_000; n++) {
    let text = rand() < 0.5 ? Array.from({ length: Math.floor(rand() * 14) }, () => pick(PIECES)).join('') : pick(GOOD);
    if (rand() < 0.5) {
      const at = Math.floor(rand() * (text.length + 1));
      text = text.slice(0, at) + pick(PIECES) + text.slice(at + (rand() < 0.5 ? 1 : 0));
    }
    if (rand() < 0.3) text = `{"k":${text}}`;
    let parsed: unknown;
    let parses = true;
    try { parsed = JSON.parse(text); } catch { parses = false; }
    let members;
    let scans = true;
    try { members = scanMembers(text); } catch (error) { assert.instance(error, JsonSyntaxError); scans = false; }
    assert.is(scans, parses, JSON.stringify(text));
    if (!parses) continue;
    valid++;
    const isObject = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
    assert.is(members !== undefined, isObject, JSON.stringify(text));
    for (const [key, span] of members ?? []) {
      const value = compactText(text, span);
      const member = (parsed as Record<string, unknown>)[key];
      assert.equal(JSON.parse(value), member, JSON.stringify(text));
      assert.is(span.depth, depthOf(member), `depth of ${key} in ${JSON.stringify(text)}`);
    }
  }
  assert.ok(valid > 5000, `enough valid texts (${valid})`);
});

test('forEachItem (a batch array split as spelled) accepts exactly what JSON.parse accepts and gives each item\'s text', () => {
  const rand = prng(20261124);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  let arrays = 0;
  for (let n = 0; n < 20_000; n++) {
    let text = rand() < 0.4 ? Array.from({ length: Math.floor(rand() * 14) }, () => pick(PIECES)).join('')
      : `[${Array.from({ length: Math.floor(rand() * 4) }, () => pick(GOOD)).join(pick([',', ' , ', ',\n']))}]`;
    if (rand() < 0.5) {
      const at = Math.floor(rand() * (text.length + 1));
      text = text.slice(0, at) + pick(PIECES) + text.slice(at + (rand() < 0.5 ? 1 : 0));
    }
    let parsed: unknown;
    let parses = true;
    try { parsed = JSON.parse(text); } catch { parses = false; }
    const items: string[] = [];
    let scans = true;
    let isArray = false;
    try {
      isArray = forEachItem(text, (span) => { items.push(text.slice(span.start, span.end)); });
    } catch (error) {
      assert.instance(error, JsonSyntaxError);
      scans = false;
    }
    assert.is(scans, parses, JSON.stringify(text));
    if (!parses) continue;
    assert.is(isArray, Array.isArray(parsed), JSON.stringify(text));
    if (!isArray) continue;
    arrays++;
    assert.equal(items.map((item) => JSON.parse(item)), parsed, JSON.stringify(text));
    for (const item of items) assert.is(item, item.trim(), 'an item has no whitespace around it');
  }
  assert.ok(arrays > 3000, `enough arrays (${arrays})`);
});

test('forEachItem keeps every spelling: 1.0, 20 digits, 1e400, escapes', () => {
  const text = String.raw`[ 1.0 ,12345678901234567890,1e400, "é" ,{"a" : -0.0}, [ ] ]`;
  const items: string[] = [];
  assert.is(forEachItem(text, (span) => { items.push(text.slice(span.start, span.end)); }), true);
  assert.equal(items, ['1.0', '12345678901234567890', '1e400', String.raw`"é"`, '{"a" : -0.0}', '[ ]']);
});

/** Levels of arrays and objects in a parsed value (0 for a scalar). */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value as object).map(depthOf));
}

// [name, text, member, its compact text, depth]
const SPANS: Array<[string, string, string, string, number]> = [
  ['numbers as spelled', '{"d": [1.0, -0.0, 1e400, 12345678901234567890]}', 'd', '[1.0,-0.0,1e400,12345678901234567890]', 1],
  ['strings untouched', '{"d": "a  b\\t\\n \\" , : {"}', 'd', '"a  b\\t\\n \\" , : {"', 0],
  ['whitespace everywhere', '{ "d" :\n{ "a" : [ 1 , { } ] ,\r\n\t"b" : null } }', 'd', '{"a":[1,{}],"b":null}', 3],
  ['a repeated key: the last wins', '{"d": 1, "d": 2}', 'd', '2', 0],
  ['an escaped key', '{"\\u0064": true}', 'd', 'true', 0],
  ['compact, depth 2', '{"d":{"a":1.0,"b":"}","c":[]},"e":0}', 'd', '{"a":1.0,"b":"}","c":[]}', 2],
  ['compact array, depth 1', '{"d":[1e400,"]",null]}', 'd', '[1e400,"]",null]', 1],
  ['compact, depth 3', '{"d":{"a":{"b":{}}}}', 'd', '{"a":{"b":{}}}', 3],
];

for (const [name, text, key, compact, depth] of SPANS) {
  test(`member spans: ${name}`, () => {
    const span = scanMembers(text)!.get(key)!;
    assert.is(compactText(text, span), compact);
    assert.is(span.depth, depth);
  });
}

test('nesting is counted without recursion: 500,000 levels', () => {
  const depth = 500_000;
  const span = scanMembers(`{"d":${'['.repeat(depth)}${']'.repeat(depth)}}`)!.get('d')!;
  assert.is(span.depth, depth);
});

test('long compact values: 10,000,000 array items and 1,000,000 members are scanned, not matched at once', () => {
  const arrayText = `{"d":[${'1,'.repeat(10_000_000)}1],"e":0}`;
  const array = scanMembers(arrayText)!;
  assert.equal([array.get('d')!.end, array.get('d')!.depth, array.get('e')!.start], [arrayText.length - 7, 1, arrayText.length - 2]);
  const objectText = `{"d":{${'"k":[1],'.repeat(1_000_000)}"z":{}}}`;
  const object = scanMembers(objectText)!.get('d')!;
  assert.equal([object.start, object.end, object.depth], [5, objectText.length - 1, 2]);
});

// [name, object text, value, result]
const SET: Array<[string, string, string, string]> = [
  ['into an empty object', '{}', '"001"', '{"run_id":"001"}'],
  ['added last', '{"a":1.0,"b":[1e400]}', '"001"', '{"a":1.0,"b":[1e400],"run_id":"001"}'],
  ['in the place of the first occurrence, repeats dropped', '{"run_id":5,"a":1,"run_id":"x"}', '"001"', '{"run_id":"001","a":1}'],
  ['an escaped spelling of the key counts', '{"run\\u005fid":"x","a":-0.0}', '"001"', '{"run_id":"001","a":-0.0}'],
];

for (const [name, text, value, result] of SET) {
  test(`setMember: ${name}`, () => assert.is(setMember(text, 'run_id', value), result));
}

test.run();
