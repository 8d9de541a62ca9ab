// How the table and the console mark things, per theme: the SGR sequences of the table's
// header, of stale rows, of rows whose value changed, and of the changed parts of the data
// (like `watch -d`). Only `day` uses colour; `night` gets its dim red from the console's
// widgets and marks with underline and reverse video only (bold is bright on most
// terminals); `mono` is for terminals without colour and NO_COLOR; `plain` marks nothing.

/** The themes the console offers (`--theme`). */
export type ThemeName = 'day' | 'night';
export const THEMES: readonly ThemeName[] = ['day', 'night'];

/** The marks of one theme (each an SGR sequence to switch on, and the one to switch it off). */
export interface Palette {
  readonly name: ThemeName | 'mono' | 'plain';
  /** The column titles. */
  readonly header: readonly [on: string, off: string];
  /** A stale (or missing) row. */
  readonly stale: readonly [on: string, off: string];
  /** A row whose value changed at the last refresh. */
  readonly changed: readonly [on: string, off: string];
  /** The changed parts of its data. */
  readonly highlight: readonly [on: string, off: string];
}

const NONE = ['', ''] as const;
const REVERSE = ['\x1b[7m', '\x1b[27m'] as const;

export const PALETTES: Readonly<Record<Palette['name'], Palette>> = {
  day: { name: 'day', header: ['\x1b[1m', '\x1b[22m'], stale: ['\x1b[33m', '\x1b[39m'], changed: ['\x1b[32m', '\x1b[39m'], highlight: REVERSE },
  night: { name: 'night', header: ['\x1b[4m', '\x1b[24m'], stale: ['\x1b[4m', '\x1b[24m'], changed: NONE, highlight: REVERSE },
  mono: { name: 'mono', header: ['\x1b[1m', '\x1b[22m'], stale: ['\x1b[1m', '\x1b[22m'], changed: NONE, highlight: REVERSE },
  plain: { name: 'plain', header: NONE, stale: NONE, changed: NONE, highlight: NONE },
};

/** The palette for a theme on a terminal with or without colour; `plain` on one that takes no escape sequences (TERM=dumb). */
export function paletteFor(theme: ThemeName, color: boolean, escapes = true): Palette {
  if (!escapes) return PALETTES.plain;
  if (theme === 'night') return PALETTES.night;
  return color ? PALETTES.day : PALETTES.mono;
}
