import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COMMANDS } from '../cli/program.js';
import { cli } from './helpers/cli.js';
import { ROOT } from './helpers/daemon.js';

// docs/cli.md holds every command's --help verbatim, after a `<!-- telemetry X --help -->`
// marker; this fails when the docs and the real executables drift apart.

const DOC = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
const BLOCK = /<!-- telemetry ((?:\w+ )?)--help -->\n```text\n([\s\S]*?)\n```/g;

/** The documented help texts by command ("" for the command list). */
function documented(): Map<string, string> {
  return new Map([...DOC.matchAll(BLOCK)].map((m) => [m[1]!.trim(), m[2]!]));
}

const trimmed = (text: string) => text.replace(/^\n+|\n+$/g, '');

test('docs/cli.md has the --help of the command list and of every command, exactly as the executable prints it', async () => {
  const docs = documented();
  assert.equal([...docs.keys()].sort(), ['', ...COMMANDS].sort(), 'one block per command, and the list');
  for (const [command, text] of docs) {
    const got = await cli(command ? [command, '--help'] : ['--help']);
    assert.is(got.code, 0);
    assert.is(trimmed(got.stdout), text, `telemetry ${command} --help`);
  }
});

test('meridian telemetry X --help is the same text with the meridian prefix', async () => {
  for (const command of COMMANDS) {
    const telemetry = await cli([command, '--help']);
    const meridian = await cli(['telemetry', command, '--help'], { bin: 'meridian' });
    assert.is(meridian.stdout, telemetry.stdout.replace(/\$ telemetry /g, '$ meridian telemetry '), command);
  }
});

test('docs/cli.md documents every option of every command in a table, and every exit code', () => {
  for (const [command, text] of documented()) {
    for (const [, option] of text.matchAll(/^ {4}(--[\w-]+)/gm)) {
      if (option === '--help' || option === '--version') continue;
      assert.ok(DOC.includes(`| \`${option}\``) || DOC.includes(`\`${option}\`, `), `${option} of "${command}" is in an options table`);
    }
  }
  for (const code of [0, 1, 2, 3, 4]) assert.match(DOC, new RegExp(`^\\| ${code} \\|`, 'm'), `exit code ${code}`);
});

test('README links docs/cli.md', () => {
  assert.match(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), /\]\(docs\/cli\.md\)/);
});

test.run();
