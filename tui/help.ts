import { printable } from '../table/format.js';
import { tailFit } from './filter-input.js';
import type { ConsoleWidgets } from './layout.js';

// The footer line and the `?` overlay: what each key does and what the columns mean. The
// footer drops its less needed keys on a narrow terminal; the overlay fits 58x16 (it is
// laid out for a 60x20 terminal).

/** The footer's keys, most needed first: what is dropped on a narrow terminal goes last. */
function footerKeys(paused: boolean, oneType: boolean): string[] {
  const pause = paused ? 'p resume' : 'p pause';
  if (oneType) return ['q quit', '? help', pause, 'Enter detail', 'c chart'];
  return ['q quit', '? help', pause, 'j/k move', '/ filter', 's sort', 'Enter detail', 'r reverse', 'c chart'];
}

/** The order the footer shows its keys in (for those that fit). */
const SHOWN_ORDER = ['j/k move', 'Enter detail', 'c chart', '/ filter', 's sort', 'r reverse', 'p pause', 'p resume', '? help', 'q quit'];

/** The footer: the keys that fit in `width` columns ("p resume" while paused). */
export function footerText(width: number, paused: boolean, oneType: boolean): string {
  const keys: string[] = [];
  for (const key of footerKeys(paused, oneType)) {
    const next = [...keys, key];
    if (next.join('  ').length <= width) keys.push(key);
  }
  return keys.sort((a, b) => SHOWN_ORDER.indexOf(a) - SHOWN_ORDER.indexOf(b)).join('  ');
}

/** The help overlay's lines (at most 53 columns each). */
export const HELP_LINES = [
  'up/down j/k   move           PgUp/PgDn  a page',
  'Home/End g/G  first / last   Tab  table <-> detail',
  'Enter         detail pane    /    filter types',
  'Esc           clear filter   s    next sort column',
  'r             reverse sort   p    pause / resume',
  'Ctrl-Z        suspend (fg)   ?    this help',
  'q  Ctrl-C     quit           a S  ack / shelve alarm',
  'c             chart          1 6 2 7  1h 6h 24h 7d',
  'Stale and missing readings stay on top; the header',
  'counts them, the bottom border says how many are',
  'below ("+N more (2 stale)"). AGE: on the daemon\'s',
  'clock. STALE: older than the daemon\'s max age.',
  '"*" value changed since the frame before (changed',
  'parts highlighted, like watch -d).',
];

/** What the footer says while the filter prompt is open (the text typed follows it). */
export const PROMPT_TEXT = 'filter: ';

/** The footer while the prompt is open: what was typed (its end, when long) and an inverse-video cursor. */
export function promptLine(draft: string, width: number): string {
  return `${PROMPT_TEXT}${tailFit(printable(draft), width - PROMPT_TEXT.length - 1)}\x1b[7m \x1b[27m`;
}

/**
 * Draw the footer (the keys, or the filter prompt with `draft` while it is open) and show or
 * hide the overlay.
 */
export function renderHelp(w: ConsoleWidgets, o: { show: boolean; draft: string | undefined; oneType: boolean; paused: boolean }): void {
  const width = w.screen.width as number;
  const footer = o.draft !== undefined ? promptLine(o.draft, width) : footerText(width, o.paused, o.oneType);
  if (w.footer.getContent() !== footer) w.footer.setContent(footer);
  const text = HELP_LINES.join('\n');
  if (w.help.getContent() !== text) w.help.setContent(text);
  if (o.show) {
    w.help.show();
    w.help.setFront();
  } else {
    w.help.hide();
  }
}
