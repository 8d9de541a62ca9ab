import { spawnDaemon, type ChildDaemon } from './daemon.js';
import { request, type RawAnswer } from './http.js';
import { removeDir } from './tmp.js';
import { Terminal } from './tmux.js';

// Reading the live console's screen (captured from tmux) and driving it against a daemon
// child: the table's rows as cells, the selected row, lines of a box, and the command line.

/** Every table row on the screen, top to bottom, as cells: [mark, type, age, seq, run, data]. */
export function tableRows(screen: string): string[][] {
  const rows: string[][] = [];
  for (const line of screen.split('\n')) {
    const inner = line.slice(1, -1);
    if (!line.startsWith('│') || !/^ [ *.] \S/.test(inner)) continue;
    const cells = inner.slice(3).trim().split(/\s{2,}/);
    if (!/^TYPE/.test(cells[0]!)) rows.push([inner[1]!, ...cells]);
  }
  return rows;
}

/** The cells of a type's table row; undefined when not shown. */
export function row(screen: string, type: string): string[] | undefined {
  return tableRows(screen).find((cells) => cells[1] === type);
}

/** The types of the table's rows in screen order. */
export const order = (screen: string): string[] => tableRows(screen).map((cells) => cells[1]!);

/** The type of the row drawn selected (white on blue), from a capture with escapes. */
export function selectedType(escaped: string): string | undefined {
  const line = escaped.split('\n').find((l) => l.includes('\x1b[37m\x1b[44m'));
  return line === undefined ? undefined : tableRows(line.replace(/\x1b\[[0-9;]*m/g, ''))[0]?.[1];
}

/** A line inside a box `width` columns wide: `│`, the text padded, `│`. `wide`: double-width characters in it. */
export const boxed = (text: string, wide = 0, width = 80): string => `│${text}${' '.repeat(width - 2 - text.length - wide)}│`;

/** Single-digit ages ("0s" .. "9s") as "Ns": the one thing in these screens that depends on timing. */
export const ageless = (line: string): string => line.replace(/\b\ds\b/g, 'Ns');

/** Any colour in a capture with escapes (foreground or background, 8, 16 or 256 colours). */
export const COLOUR = /\x1b\[(?:[0-9;]*;)?(?:3[0-7]|4[0-7]|9[0-7]|10[0-7]|38;5;\d+|48;5;\d+)[;m]/;

/** POST one event to a daemon child. */
export function post(d: ChildDaemon, type: string, data: unknown): Promise<RawAnswer> {
  return request(d.url, '/event', { method: 'POST', body: { type, data } });
}

/** `telemetry current [TYPE] --follow` against daemon `d`, polling every 0.3 s. */
export function follow(d: ChildDaemon, ...more: string[]): string[] {
  return ['current', '--follow', '--host', '127.0.0.1', '--port', String(d.port), '--interval', '0.3', ...more];
}

/** Run `fn` with a fresh daemon child (`args` for `telemetry run`); stopped and its files removed afterwards. */
export async function withDaemon(fn: (d: ChildDaemon) => Promise<void>, args: string[] = []): Promise<void> {
  const d = await spawnDaemon({ args });
  try {
    await fn(d);
  } finally {
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
}

/** Run `fn` with a fresh daemon and terminal; both are gone afterwards, whatever happened. */
export function withConsole(fn: (d: ChildDaemon, t: Terminal) => Promise<void>, args: string[] = []): Promise<void> {
  return withDaemon(async (d) => {
    const t = new Terminal();
    try {
      await fn(d, t);
    } finally {
      t.kill();
    }
  }, args);
}
