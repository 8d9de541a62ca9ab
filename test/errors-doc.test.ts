import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ERROR_CATALOGUE } from '../lib/errors.js';
import { ROOT } from './helpers/daemon.js';

// docs/errors.md must list exactly the codes and statuses of ERROR_CATALOGUE.

const ROW = /^\|\s*`([A-Z_]+)`\s*\|\s*(\d{3})\s*\|\s*(.+?)\s*\|\s*$/;

function documentedRows(): [string, number, string][] {
  const text = fs.readFileSync(path.join(ROOT, 'docs', 'errors.md'), 'utf8');
  return text.split('\n').flatMap((line) => {
    const m = ROW.exec(line);
    return m ? [[m[1]!, Number(m[2]), m[3]!] as [string, number, string]] : [];
  });
}

test('docs/errors.md lists every catalogued code with its status, and nothing else', () => {
  const documented = documentedRows().map(([code, status]) => [code, status]);
  const catalogued = Object.entries(ERROR_CATALOGUE).map(([code, spec]) => [code, spec.status]);
  const byCode = (a: (string | number)[], b: (string | number)[]) => String(a[0]).localeCompare(String(b[0]));
  assert.equal([...documented].sort(byCode), [...catalogued].sort(byCode));
});

test('docs/errors.md lists each code once, ordered by status, each with a meaning', () => {
  const rows = documentedRows();
  assert.is(new Set(rows.map(([code]) => code)).size, rows.length);
  const statuses = rows.map(([, status]) => status);
  assert.equal(statuses, [...statuses].sort((a, b) => a - b));
  for (const [code, , meaning] of rows) assert.ok(meaning.length > 10, `${code} has no meaning`);
});

test('the catalogue maps to error statuses only (4xx/5xx)', () => {
  for (const [code, spec] of Object.entries(ERROR_CATALOGUE)) {
    assert.ok(spec.status >= 400 && spec.status <= 599, `${code} -> ${spec.status}`);
  }
});

test.run();
