import { PALETTES, type Palette, type ThemeName } from '../table/palette.js';

// The console's looks per theme: the widgets' blessed styles and the SGR marks of the
// header. `day` is the default colour scheme; `night` is dim red on black with nothing
// bright (no bold, no white, no bright colours: it keeps dark-adapted eyes); `mono` draws
// no colour at all (NO_COLOR, or a terminal without colours such as TERM=vt100).

/** A blessed colour style (empty: the terminal's own colours). */
export interface Colours {
  fg?: string;
  bg?: string;
}

/** Everything the console draws in a theme's way. */
export interface ScreenTheme {
  readonly name: ThemeName | 'mono';
  readonly palette: Palette;
  /** Every box's text. */
  readonly base: Colours;
  readonly border: Colours;
  /** The selected row. */
  readonly selected: Colours & { inverse?: boolean };
  /** The connection word of the header, by state, and the stale count: SGR on/off. */
  readonly live: readonly [string, string];
  readonly alert: readonly [string, string];
  readonly down: readonly [string, string];
  readonly stale: readonly [string, string];
}

const NONE = ['', ''] as const;

const THEMES: Readonly<Record<ScreenTheme['name'], ScreenTheme>> = {
  day: {
    name: 'day', palette: PALETTES.day, base: {}, border: { fg: 'cyan' }, selected: { fg: 'white', bg: 'blue' },
    live: ['\x1b[1;32m', '\x1b[0m'], alert: ['\x1b[1;33m', '\x1b[0m'], down: ['\x1b[1;37;41m', '\x1b[0m'], stale: ['\x1b[1;33m', '\x1b[0m'],
  },
  night: {
    name: 'night', palette: PALETTES.night, base: { fg: 'red', bg: 'black' }, border: { fg: 'red', bg: 'black' },
    selected: { fg: 'black', bg: 'red' },
    live: NONE, alert: ['\x1b[4m', '\x1b[24m'], down: ['\x1b[7m', '\x1b[27m'], stale: ['\x1b[7m', '\x1b[27m'],
  },
  mono: {
    name: 'mono', palette: PALETTES.mono, base: {}, border: {}, selected: { inverse: true },
    live: NONE, alert: ['\x1b[1m', '\x1b[22m'], down: ['\x1b[1m', '\x1b[22m'], stale: ['\x1b[1m', '\x1b[22m'],
  },
};

/** The theme to draw with: `night` when asked (it needs 8 colours), else `day`, or `mono` without colour. */
export function screenTheme(theme: ThemeName, colours: boolean): ScreenTheme {
  if (!colours) return THEMES.mono;
  return THEMES[theme];
}
