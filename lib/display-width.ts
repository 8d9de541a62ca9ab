import { eastAsianWidth } from 'get-east-asian-width';

// How many terminal columns text takes, without loading the console's screen library: East
// Asian wide and fullwidth characters count 2 (get-east-asian-width, the Unicode data that
// string-width uses), combining marks and format characters 0, ambiguous ones 1.

/** A tab: 8 columns (the table turns tabs into spaces before drawing). */
const TAB_WIDTH = 8;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;

/** Columns of one code point: 0 for NUL, controls and combining marks, 2 for wide ones, else 1. */
export function charWidth(point: number): number {
  if (point === 0x09) return TAB_WIDTH;
  if (point < 0x20 || (point >= 0x7f && point < 0xa0)) return 0;
  if (point >= 0x300 && ZERO_WIDTH.test(String.fromCodePoint(point))) return 0;
  return eastAsianWidth(point);
}

/** Columns `text` takes on the screen (wide East Asian characters count 2, combining marks 0). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += charWidth(ch.codePointAt(0)!);
  return width;
}

/** The longest start of `text` that takes at most `width` columns (cut by display width, never inside a character). */
export function headOfWidth(text: string, width: number): string {
  let out = '';
  let used = 0;
  for (const ch of text) {
    used += charWidth(ch.codePointAt(0)!);
    if (used > width) break;
    out += ch;
  }
  return out;
}

/** `text` padded with spaces on the right to `width` display columns (a table's left-aligned cell; wide characters count 2). */
export function padEndWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/** `text` padded with spaces on the left to `width` display columns (a table's right-aligned cell). */
export function padStartWidth(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - displayWidth(text))) + text;
}
