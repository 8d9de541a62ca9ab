import type { ConsoleWidgets } from './layout.js';

// The footer line and the `?` overlay: what each key does and what the columns mean.

/** The footer: the main keys (fits 80 columns). */
export const FOOTER_TEXT = 'j/k move  Enter detail  / filter  s sort  p pause  ? help  q quit';

/** The help overlay's text. */
export const HELP_TEXT = [
  'up/down, j/k      move the selection',
  'PgUp/PgDn         move a page',
  'Home/End, g/G     first / last row',
  'Enter             show or hide the detail pane',
  '/                 filter types (Enter applies, empty clears,',
  '                  Esc cancels)',
  's                 sort by type, age (newest first), seq',
  'p                 pause / resume polling',
  '?  Esc            close this help',
  'q  Ctrl-C         quit',
  '',
  'Columns: TYPE, AGE of the reading (daemon clock), SEQ,',
  'RUN id ("-" = site), DATA summary. "*" = just changed;',
  'STALE = older than the stale threshold.',
].join('\n');

/** What the footer says while the filter prompt is open (the prompt follows it). */
export const PROMPT_TEXT = 'filter: ';

/** Draw the footer and show or hide the overlay. */
export function renderHelp(w: ConsoleWidgets, show: boolean, prompting: boolean): void {
  const footer = prompting ? PROMPT_TEXT : FOOTER_TEXT;
  if (w.footer.getContent() !== footer) w.footer.setContent(footer);
  if (w.help.getContent() !== HELP_TEXT) w.help.setContent(HELP_TEXT);
  if (show) {
    w.help.show();
    w.help.setFront();
  } else {
    w.help.hide();
  }
}
