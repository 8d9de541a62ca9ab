// Recorded text on its way to a terminal: a type, a run id, data or meta (or a daemon's
// message quoting them) may hold characters a terminal obeys instead of showing: C0 and C1
// controls (ESC starts a sequence that can retitle the window or recolour the screen; 0x9b
// is a one-byte CSI), DEL, and the bidi overrides and isolates that reorder what is shown.
// Each becomes U+FFFD. Text piped or written to a file never goes through here (it stays
// byte-exact).

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control but tab and newline, DEL and every bidi override or isolate replaced by U+FFFD. */
export function printable(text: string): string {
  return text.replace(CONTROL, '\uFFFD');
}

/** printable() for whole lines of output: a CRLF line end (CSV's) is kept, a lone CR is not. */
export function terminalText(text: string): string {
  return text.split('\r\n').map(printable).join('\r\n');
}

/** printable() for a text shown inside one line (a table cell, an alarm's line): tab and newline as a space too. */
export function lineText(text: string): string {
  return printable(text).replace(/[\t\n]/g, ' ');
}
