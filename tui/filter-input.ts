import { TYPE_FORBIDDEN_CHARACTER } from '../lib/wire.js';
import { displayWidth } from '../lib/display-width.js';

// The filter prompt's line editing, pure: one key in, the text (and whether it was applied
// or cancelled) out. The console edits the line itself rather than through a blessed
// textbox: a textbox starts listening one tick after it opens, so keys that arrived with
// the `/` (typed ahead over a slow link, or pasted) were lost.

/** The parts of a blessed key event the prompt reads. */
export interface KeyPress {
  name?: string;
  full?: string;
  ctrl?: boolean;
  meta?: boolean;
}

/** The prompt's text after one key; `done` once Enter applied it or Esc cancelled it. */
export interface FilterEdit {
  text: string;
  done?: 'apply' | 'cancel';
}


/**
 * One key typed at the prompt: Enter applies, Esc cancels, Backspace deletes the last
 * character, Ctrl-U clears; any other character a type may hold is added. The rest is ignored
 * (blessed sends Enter as `return` then `enter`: only `enter` applies).
 */
export function editFilter(text: string, ch: string | undefined, key: KeyPress): FilterEdit {
  if (key.name === 'enter') return { text, done: 'apply' };
  if (key.name === 'escape') return { text, done: 'cancel' };
  if (key.name === 'backspace') return { text: [...text].slice(0, -1).join('') };
  if (key.full === 'C-u') return { text: '' };
  if (ch && !key.ctrl && !key.meta && !TYPE_FORBIDDEN_CHARACTER.test(ch)) return { text: text + ch };
  return { text };
}

/** The end of `text` that fits in `width` columns (the prompt shows what was typed last). */
export function tailFit(text: string, width: number): string {
  let out = '';
  let used = 0;
  for (const ch of [...text].reverse()) {
    used += displayWidth(ch);
    if (used > width) break;
    out = ch + out;
  }
  return out;
}
