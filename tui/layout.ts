import blessed from 'blessed';
import contrib from 'blessed-contrib';
import type { ThemeName } from '../table/palette.js';
import { screenTheme, type ScreenTheme } from './theme.js';

// The console's screen and widgets, and where they sit for a terminal size. Like gtop's
// layout file: widgets are created once, moved on resize, and filled by the widget modules.

/** The parts of blessed-contrib's table the console uses (its typings omit `rows`). */
export interface ContribTable {
  rows: blessed.Widgets.ListElement & { parseTags: boolean; selected: number; style: { selected: Record<string, unknown> } };
  options: { columnWidth: number[] };
  setData(data: { headers: string[]; data: string[][] }): void;
  setLabel(label: string): void;
}

/** Every widget of the console, and the theme they are drawn in. */
export interface ConsoleWidgets {
  screen: blessed.Widgets.Screen;
  theme: ScreenTheme;
  header: blessed.Widgets.BoxElement;
  /** Under the header while the daemon has alarms: the alarm `a` and `S` act on (alarm-line.ts). */
  alarm: blessed.Widgets.BoxElement;
  table: blessed.Widgets.BoxElement & ContribTable;
  /** On the table's top border, right: the position (`12/300`) and the rows above. */
  position: blessed.Widgets.BoxElement;
  /** On the table's bottom border, right: `+N more (2 stale) ↓`. */
  more: blessed.Widgets.BoxElement;
  detail: blessed.Widgets.BoxElement;
  /** Over the table and detail pane while the chart view is open (`c`, chart-view.ts). */
  chart: blessed.Widgets.BoxElement;
  footer: blessed.Widgets.BoxElement;
  help: blessed.Widgets.BoxElement;
  /** Over everything when the terminal is smaller than MIN_SIZE: says so instead of a table without rows. */
  tooSmall: blessed.Widgets.BoxElement;
}

/** The smallest terminal the console draws in: the header, the table with one row, the footer. */
export const MIN_SIZE = { width: 40, height: 8 } as const;

const HEADER = 2;
const FOOTER = 1;
/** Height of the table holding one row (single-type console). */
const ONE_ROW_TABLE = 5;
/** The help box: at most this wide (its text is 53 columns). */
const HELP_WIDTH = 58;

/** Create the screen and widgets (nothing drawn yet); `noColor` or a terminal without colours draws in mono. */
export function createWidgets(noColor: boolean, themeName: ThemeName, title: string): ConsoleWidgets {
  const screen = blessed.screen({ smartCSR: true, fullUnicode: true, autoPadding: true, title, warnings: false });
  // a terminal without colours (TERM=vt100, vt220, xterm-mono) has fewer than 8 in its terminfo
  const colours = (screen.tput as unknown as { colors: number }).colors;
  const theme = screenTheme(themeName, !noColor && colours >= 8);
  const { base, border } = theme;
  const plain = { tags: false, wrap: false, style: { ...base } };
  const header = blessed.box({ ...plain, parent: screen, top: 0, left: 0, width: '100%', height: HEADER });
  const alarm = blessed.box({ ...plain, parent: screen, top: HEADER, left: 0, width: '100%', height: 1, hidden: true });
  const table = contrib.table({
    parent: screen, keys: false, interactive: 'true', label: ' readings ', columnSpacing: 1, columnWidth: [80],
    fg: base.fg ?? 'default', bg: base.bg, selectedFg: theme.selected.fg ?? 'default', selectedBg: theme.selected.bg ?? 'default',
    border: { type: 'line', ...border }, style: { border, label: { ...border }, fg: base.fg, bg: base.bg },
  } as contrib.Widgets.TableOptions) as unknown as ConsoleWidgets['table'];
  table.rows.parseTags = false; // types and data are shown as they are, braces included
  if (theme.name === 'night') table.style.bold = false; // bold is bright on most terminals
  if (theme.selected.inverse) table.rows.style.selected.inverse = true;
  if (base.bg) Object.assign(table.rows.style, { bg: base.bg, fg: base.fg });
  const marker = () => blessed.box({ ...plain, parent: screen, height: 1, width: 1, style: { ...border } });
  const position = marker();
  const more = marker();
  const detail = blessed.box({ ...plain, parent: screen, label: ' detail ', border: { type: 'line' },
    style: { ...base, border, label: { ...border } }, scrollable: true, alwaysScroll: true });
  const chart = blessed.box({ ...plain, parent: screen, label: ' chart ', border: { type: 'line' }, style: { ...base, border, label: { ...border } }, hidden: true });
  const footer = blessed.box({ ...plain, parent: screen, bottom: 0, left: 0, width: '100%', height: FOOTER });
  const help = blessed.box({ ...plain, parent: screen, top: 'center', left: 'center', width: HELP_WIDTH, height: 16,
    border: { type: 'line' }, style: { ...base, border, label: { ...border } }, label: ' keys ', hidden: true, padding: { left: 1, right: 1 } });
  const tooSmall = blessed.box({ ...plain, parent: screen, top: 0, left: 0, width: '100%', height: '100%', hidden: true });
  return { screen, theme, header, alarm, table, position, more, detail, chart, footer, help, tooSmall };
}

/**
 * Where the table and detail pane go: table above, detail below (when shown), sized to the
 * screen, under the alarm line when there is one (`alarmLine`: it takes a row from the middle).
 */
export function placeWidgets(w: ConsoleWidgets, showDetail: boolean, singleType: boolean, helpLines: number, alarmLine = false, showChart = false): void {
  const width = w.screen.width as number;
  const height = w.screen.height as number;
  const top = HEADER + (alarmLine ? 1 : 0);
  const middle = Math.max(4, height - top - FOOTER);
  const tableHeight = !showDetail ? middle : singleType ? Math.min(ONE_ROW_TABLE, middle) : Math.max(5, Math.ceil(middle * 0.55));
  Object.assign(w.table, { top, left: 0, width: '100%', height: tableHeight });
  Object.assign(w.position, { top });
  Object.assign(w.more, { top: top + tableHeight - 1 });
  Object.assign(w.detail, { top: top + tableHeight, left: 0, width: '100%', height: Math.max(0, middle - tableHeight) });
  if (showDetail && middle - tableHeight >= 3) w.detail.show(); else w.detail.hide();
  // the chart view covers the table and the detail pane (the header, alarm line and footer stay)
  Object.assign(w.chart, { top, left: 0, width: '100%', height: middle });
  if (showChart) {
    w.chart.show();
    w.chart.setFront();
  } else w.chart.hide();
  w.help.width = Math.min(HELP_WIDTH, width);
  w.help.height = Math.min(helpLines + 2, height - (alarmLine ? top : 0));
  // the help never covers the alarm line
  w.help.top = alarmLine ? top : 'center';
  placeTooSmall(w, width, height);
}

// below MIN_SIZE the table would have no row: say so (short lines, for a narrow terminal) until it grows
function placeTooSmall(w: ConsoleWidgets, width: number, height: number): void {
  if (width >= MIN_SIZE.width && height >= MIN_SIZE.height) {
    w.tooSmall.hide();
    return;
  }
  w.tooSmall.setContent([`too small: ${width}x${height}`, `needs ${MIN_SIZE.width}x${MIN_SIZE.height}`, 'q quits'].join('\n'));
  w.tooSmall.setFront();
  w.tooSmall.show();
}

/** Put a border marker's text at the right end of its border line (hidden when empty). */
export function placeMarker(w: ConsoleWidgets, box: blessed.Widgets.BoxElement, text: string): void {
  const width = [...text].length;
  if (width === 0 || width > (w.screen.width as number) - 12) {
    box.hide();
    return;
  }
  if (box.getContent() !== text) box.setContent(text);
  Object.assign(box, { width, left: (w.screen.width as number) - 2 - width });
  box.show();
}

/** Inner width of the table (inside its border and padding). */
export function tableInnerWidth(w: ConsoleWidgets): number {
  return Math.max(10, (w.table.width as number) - 4);
}

/** Rows the table shows at once. */
export function tablePageSize(w: ConsoleWidgets): number {
  return Math.max(1, (w.table.height as number) - 4);
}
