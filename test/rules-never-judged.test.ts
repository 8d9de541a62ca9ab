import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfigFile } from '../lib/config-file.js';
import { parseExpression } from '../daemon/rules/compile.js';
import { showNode } from '../daemon/rules/syntax.js';
import { resolveSafety } from '../daemon/safety/config.js';
import { cli } from './helpers/cli.js';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Hostile tester I, finding 4: rules that could never be judged (unknown, so unsafe, on every
// reading for ever) are refused at start-up with the rule, the config line and the reason; and
// `not` binds looser than the comparisons, as in Python (`not a == 2` is `not (a == 2)`).

const refused: [string, string, string][] = [
  ['an ordering of a string', 'a.data.x < "x"', '< takes a number, not a string (it could never be judged) at position 10'],
  ['a string ordered', '"x" >= a.data.x', '>= takes a number, not a string (it could never be judged) at position 5'],
  ['arithmetic on true', 'a.data.x + true > 1', '+ takes a number, not true/false (it could never be judged) at position 10'],
  ['a chained comparison', 'a.data.x < a.data.y < 3', 'a chained comparison (a < b < c) is not part of the language: write a < b and b < c at position 10'],
  ['a chained equality', 'a.data.x == 1 == a.data.y', 'a chained comparison (a == b == c, a < b == c) is not part of the language: write each comparison on its own, joined by and at position 10'],
  ['a comparison equal to another', 'a.data.x > 1 != a.data.y < 2', 'a chained comparison (a == b == c, a < b == c) is not part of the language: write each comparison on its own, joined by and at position 14'],
  ['a number equal to a string', '1 == "1"', '== compares a number with a string, which are never equal at position 3'],
  ['an empty type name', '"".data.x > 1', 'an empty type name ("".data.x) names no type at position 1'],
  ['an empty type name, later', 'a.data.x > 1 or "".data.x > 1', 'an empty type name ("".data.x) names no type at position 17'],
  ['not of a number', 'not 3', 'not takes true/false, not a number (it could never be judged) at position 1'],
  ['and of numbers', 'a.data.x and 2', 'and takes true/false, not a number (it could never be judged) at position 10'],
  ['a number as the whole', 'a.data.x + 1', 'the expression gives a number, never true or false at position 1'],
  ['a string as the whole', '"open"', 'the expression gives a string, never true or false at position 1'],
  ['a function of true/false', 'abs(stale(a)) > 1', 'abs() takes a number, not true/false (it could never be judged) at position 1'],
  ['not after a comparison', 'a.data.x == not a.data.y', 'not right after an operator is not part of the language (write it in parentheses: a == (not b)) at position 13'],
  ['an escape that is not JSON\'s', 'a.data.s == "caf\\q"', '\\q is not an escape of the language (the escapes are JSON\'s: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) at position 17'],
  // positions stay the text's, and no parenthesis put in around a not's operand shows in a message
  ['an unfinished comparison under not', 'not a.data.x ==', 'expected expression after == at the end'],
  ['a not with nothing after it', 'a.data.x > 1 and not', 'missing unaryOp argument at the end'],
  ['a bad operator after a not', 'not a.data.x == 2 and b.data.y >> 3', 'the operator >> is not part of the language at position 32'],
];

for (const [name, text, why] of refused) {
  test(`refused: ${name}`, () => {
    assert.throws(() => parseExpression(text, true), (e: Error) => e.message === why, `${text}: ${(() => { try { parseExpression(text, true); return 'accepted'; } catch (e) { return (e as Error).message; } })()}`);
  });
}

const trees: [string, string][] = [
  ['not a.data.x == 2', '(not (a.data.x == 2))'],
  ['! a.data.x == 2', '(not (a.data.x == 2))'],
  ['not a.data.x + 1 > 2 and b.data.y', '((not ((a.data.x + 1) > 2)) and b.data.y)'],
  ['not a.data.x or not b.data.y', '((not a.data.x) or (not b.data.y))'],
  ['not not a.data.x == 2', '(not (not (a.data.x == 2)))'],
  ['(not a.data.x) == true', '((not a.data.x) == true)'],
  ['a.data.x == (not b.data.y)', '(a.data.x == (not b.data.y))'],
  ['max(a.data.x, 1) > 0 and not (b.data.y < 1)', '((max(a.data.x, 1) > 0) and (not (b.data.y < 1)))'],
  ['a.data.s == "caf\\u00e9"', '(a.data.s == "café")'],
  ['a.data.s == "tab\\there \\"q\\" \\\\ \\/"', '(a.data.s == "tab\\there \\"q\\" \\\\ /")'],
  ['a.data.s == \'it\\\'s\'', '(a.data.s == "it\'s")'],
  ['a.data["caf\\u00e9"] > 1', 'a.data["café"] > 1'],
];

for (const [text, tree] of trees) {
  test(`read as Python reads it: ${text}`, () => {
    const root = parseExpression(text, true).root;
    assert.is(root.kind === 'compare' && text.startsWith('a.data[') ? `${showNode(root.left)} > 1` : showNode(root), tree);
  });
}

test('the real daemon refuses each at start-up: exit 2, the file, its line, the rule, the reason; nothing created', async () => {
  const dir = tempDir();
  try {
    const rows: [string, string][] = [
      ['[safety]\n[[safety.rule]]\nname = "dome"\nwhen = "dome.data.state < \\"open\\""\n', `line 4: safety rule 1 (dome): when must be an expression of the rule language (< takes a number, not a string (it could never be judged) at position 17; see docs/safety.md); got "dome.data.state < \\"open\\""`],
      ['[[alarm]]\nid = "t"\nseverity = "warning"\nwhen = "a.data.x > 1"\nclear = \'a.data.x < a.data.y < 3\'\n', 'line 5: alarm 1 (t): clear must be an expression of the rule language (a chained comparison (a < b < c) is not part of the language: write a < b and b < c at position 10; see docs/safety.md); got "a.data.x < a.data.y < 3"'],
      ['[[alarm]]\nid = "e"\nseverity = "warning"\n\nwhen = "\\"\\".data.x > 1"\n', 'line 5: alarm 1 (e): when must be an expression of the rule language (an empty type name ("".data.x) names no type at position 1; see docs/safety.md); got "\\"\\".data.x > 1"'],
      ['[[alarm]]\nid = "u"\nseverity = "warning"\nwhen = \'a.data.s == "\\x41"\'\n', 'line 4: alarm 1 (u): when must be an expression of the rule language (\\x is not an escape of the language (the escapes are JSON\'s: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) at position 14; see docs/safety.md); got "a.data.s == \\"\\\\x41\\""'],
    ];
    for (const [toml, said] of rows) {
      const config = path.join(dir, 'meridian.toml');
      fs.writeFileSync(config, toml);
      const site = path.join(dir, 'site');
      const run = await cli(['run', '--port', '1', '--site-dir', site, '--config', config]);
      assert.equal([run.code, run.stdout, run.stderr], [2, '', `telemetry: ${config} ${said} (see "telemetry run --help")\n`]);
      assert.is(fs.existsSync(site), false);
    }
  } finally {
    removeDir(dir);
  }
});

test('on the daemon: not a == 2 is not (a == 2), and a \\u00e9 in a string matches the reading\'s é', () => withTestDaemon({
  safety: resolveSafety(parseConfigFile('[safety]\n[[safety.rule]]\nname = "n"\nwhen = "not s.data.v == 2"\n[[safety.rule]]\nname = "u"\nwhen = "s.data.w == \\"caf\\\\u00e9\\""\n', 'test.toml').safety, 'test.toml'),
  safetyIntervalMs: 0,
}, async (d) => {
  const reasons = async (data: unknown) => {
    await postEvent(d.url, { type: 's', data });
    return (await request(d.url, '/safety')).json.reasons as string[];
  };
  assert.equal(await reasons({ v: 2, w: 'tea' }), []);
  assert.equal(await reasons({ v: 3, w: 'café' }), ['rule n: not s.data.v == 2', 'rule u: s.data.w == "caf\\u00e9"']);
}));

test.run();
