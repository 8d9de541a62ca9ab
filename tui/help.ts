import { printable } from '../table/format.js';
import { tailFit } from './filter-input.js';
import type { ConsoleWidgets } from './layout.js';

// The footer line and the `?` overlay: what each key does and what the columns mean.

/** The footer: the main keys (fits 80 columns). */
export const FOOTER_TEXT = 'j/k move  Enter detail  / filter  s sort  p pause  ? help  q quit';

/** The footer of the one-type console, where there is nothing to move to, filter or sort. */
export const FOOTER_ONE_TYPE = 'Enter detail  p pause  ? help  q quit';

/** The help overlay's text. */
export const HELP_TEXT = [
  'up/down, j/k      move the selection',
  'PgUp/PgDn         move a page',
  'Home/End, g/G     first / last row',
  'Enter             show or hide the detail pane',
  '/                 filter types (Enter applies, empty clears,',
  '                  Esc cancels)',
  's                 sort by type, age (newest first), seq',
  'p                 pause / resume updates',
  '?  Esc            close this help',
  'q  Ctrl-C         quit',
  '',
  'Columns: TYPE, AGE of the reading (daemon clock), SEQ,',
  'RUN id ("-" = site), DATA summary. "*" = just changed;',
  'STALE = older than the stale threshold.',
].join('\n');

/** What the footer says while the filter prompt is open (the text typed follows it). */
export const PROMPT_TEXT = 'filter: ';

/** The footer while the prompt is open: what was typed (its end, when long) and an inverse-video cursor. */
export function promptLine(draft: string, width: number): string {
  return `${PROMPT_TEXT}${tailFit(printable(draft), width - PROMPT_TEXT.length - 1)}\x1b[7m \x1b[0m`;
}

/**
 * Draw the footer (the keys, or the filter prompt with `draft` while it is open) and show or
 * hide the overlay.
 */
export function renderHelp(w: ConsoleWidgets, show: boolean, draft: string | undefined, oneType: boolean): void {
  const footer = draft !== undefined ? promptLine(draft, w.screen.width as number) : oneType ? FOOTER_ONE_TYPE : FOOTER_TEXT;
  if (w.footer.getContent() !== footer) w.footer.setContent(footer);
  if (w.help.getContent() !== HELP_TEXT) w.help.setContent(HELP_TEXT);
  if (show) {
    w.help.show();
    w.help.setFront();
  } else {
    w.help.hide();
  }
}
