import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from './helpers/daemon.js';

// The rules of docs/architecture.md, read from its rooms table and held against the imports of
// every source file (type-only imports count: they couple the files as much): every source
// file lives in a room of the table; a room imports only itself and the rooms its row names
// ("everything above" names the rows above it; a room named there "only ... (a lazy import)"
// may be reached by `import()` alone); and there is no import circle.

const SKIP = new Set(['node_modules', 'dist', 'test', 'scripts', '.git', '.cache', 'docs']);

/** Every .ts source file of the package, relative to the root (posix separators). */
function sourceFiles(dir = ROOT): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path.relative(ROOT, full).split(path.sep).join('/'));
  }
  return out.sort();
}

interface Import { target: string; lazy: boolean }

/** The files of ours a source file imports (static, re-exports and `import()`), resolved from `.js` to `.ts`. */
function importsOf(file: string): Import[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const found: Import[] = [];
  const add = (spec: string, lazy: boolean) => {
    if (!spec.startsWith('.')) return;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts');
    found.push({ target, lazy });
  };
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/gm)) add(m[1]!, false);
  for (const m of text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)) add(m[1]!, false);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) add(m[1]!, true);
  return found;
}

interface Room { name: string; files: string[] | undefined; allowed: Set<string>; lazy: Set<string>; anyDaemon: boolean; nothing: boolean }

/** The rows of the rooms table of docs/architecture.md. */
function rooms(): Room[] {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const table = doc.slice(doc.indexOf('| room |'));
  const lines = table.split('\n').slice(2);
  const rows = lines.slice(0, lines.findIndex((line) => !line.startsWith('|')));
  const out: Room[] = [];
  for (const line of rows) {
    const [roomCell, , importCell] = line.split(' | ').map((c) => c.replace(/^\| ?| ?\|$/g, ''));
    const name = /`([^`]+\/)`/.exec(roomCell!)![1]!;
    const files = roomCell!.includes('(') ? [...roomCell!.matchAll(/`([^`/]+\.ts)`/g)].map((m) => name + m[1]) : undefined;
    const [eager, lazyPart = ''] = importCell!.split(';');
    const names = (s: string) => [...s.matchAll(/`([^`]+\/)(\*)?`/g)].map((m) => m[1]!);
    const allowed = new Set(names(eager!));
    if (/everything above/.test(eager!)) out.forEach((r) => allowed.add(r.name));
    const lazy = /lazy/.test(lazyPart) ? new Set(names(lazyPart)) : new Set<string>();
    for (const l of lazy) allowed.delete(l);
    out.push({ name, files, allowed, lazy, anyDaemon: /`daemon\/\*`/.test(eager!), nothing: /nothing of ours/.test(eager!) });
  }
  return out;
}

/** The room a file lives in: a row naming the file, else the deepest room folder holding it (a room with rooms below it holds only its own files). */
function roomOf(file: string, all: Room[]): Room | undefined {
  const named = all.find((r) => r.files?.includes(file));
  if (named) return named;
  const holders = all.filter((r) => r.files === undefined && file.startsWith(r.name)).sort((a, b) => b.name.length - a.name.length);
  const room = holders[0];
  if (!room) return undefined;
  const deeper = file.slice(room.name.length).includes('/');
  const hasRoomsBelow = all.some((r) => r !== room && r.name.startsWith(room.name));
  return deeper && hasRoomsBelow ? undefined : room;
}

const ENTRY = 'index.ts'; // the package's entry re-exports the public surface of every room

test('every source file lives in a room of docs/architecture.md', () => {
  const all = rooms();
  const homeless = sourceFiles().filter((f) => f !== ENTRY && roomOf(f, all) === undefined);
  assert.equal(homeless, []);
});

test('no room imports a room its row does not name (lazy rooms only by import())', () => {
  const all = rooms();
  const wrong: string[] = [];
  for (const file of sourceFiles()) {
    if (file === ENTRY) continue;
    const from = roomOf(file, all);
    if (!from) continue;
    for (const { target, lazy } of importsOf(file)) {
      const to = roomOf(target, all);
      if (!to || to === from) continue;
      const ok = from.nothing ? false
        : from.allowed.has(to.name) || (from.anyDaemon && to.name.startsWith('daemon/')) || (lazy && from.lazy.has(to.name));
      if (!ok) wrong.push(`${file} -> ${target}${lazy ? ' (lazy)' : ''}`);
    }
  }
  assert.equal(wrong, []);
});

test('no import circle among the source files', () => {
  const graph = new Map(sourceFiles().map((f) => [f, importsOf(f).map((i) => i.target)]));
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, trail: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      circles.push([...trail.slice(trail.indexOf(file)), file].join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  assert.equal(circles, []);
});

test('the rules see what they hold: the table has its rooms, and a known import is found', () => {
  const all = rooms();
  assert.ok(all.some((r) => r.name === 'lib/' && r.nothing), 'lib/ imports nothing of ours');
  assert.ok(all.some((r) => r.name === 'cli/' && r.lazy.has('tui/')), 'cli/ reaches tui/ lazily');
  assert.ok(importsOf('table/rows.ts').some((i) => i.target === 'table/row-order.ts'));
});

test.run();
