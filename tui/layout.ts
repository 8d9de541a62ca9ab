import blessed from 'blessed';
import contrib from 'blessed-contrib';

// The console's screen and widgets, and where they sit for a terminal size. Like gtop's
// layout file: widgets are created once, moved on resize, and filled by the widget modules.

/** The parts of blessed-contrib's table the console uses (its typings omit `rows`). */
export interface ContribTable {
  rows: blessed.Widgets.ListElement & { parseTags: boolean; selected: number; style: { selected: Record<string, unknown> } };
  options: { columnWidth: number[] };
  setData(data: { headers: string[]; data: string[][] }): void;
  setLabel(label: string): void;
}

/** Every widget of the console. */
export interface ConsoleWidgets {
  screen: blessed.Widgets.Screen;
  header: blessed.Widgets.BoxElement;
  table: blessed.Widgets.BoxElement & ContribTable;
  detail: blessed.Widgets.BoxElement;
  footer: blessed.Widgets.BoxElement;
  help: blessed.Widgets.BoxElement;
}

const HEADER = 2;
const FOOTER = 1;
/** Height of the table holding one row (single-type console). */
const ONE_ROW_TABLE = 5;

/** Create the screen and widgets (nothing drawn yet). */
export function createWidgets(noColor: boolean, title: string): ConsoleWidgets {
  const screen = blessed.screen({ smartCSR: true, fullUnicode: true, autoPadding: true, title, warnings: false });
  const border = noColor ? {} : { fg: 'cyan' };
  const plain = { tags: false, wrap: false, style: {} };
  const header = blessed.box({ ...plain, parent: screen, top: 0, left: 0, width: '100%', height: HEADER });
  const table = contrib.table({
    parent: screen, keys: false, interactive: 'true', label: ' readings ', columnSpacing: 1, columnWidth: [80],
    fg: 'default', selectedFg: noColor ? 'default' : 'white', selectedBg: noColor ? 'default' : 'blue',
    border: { type: 'line', ...border }, style: { border },
  } as contrib.Widgets.TableOptions) as unknown as ConsoleWidgets['table'];
  table.rows.parseTags = false; // types and data are shown as they are, braces included
  if (noColor) table.rows.style.selected.inverse = true;
  const detail = blessed.box({ ...plain, parent: screen, label: ' detail ', border: { type: 'line' },
    style: { border }, scrollable: true });
  const footer = blessed.box({ ...plain, parent: screen, bottom: 0, left: 0, width: '100%', height: FOOTER });
  const help = blessed.box({ ...plain, parent: screen, top: 'center', left: 'center', width: 64, height: 16,
    border: { type: 'line' }, style: { border }, label: ' keys ', hidden: true });
  return { screen, header, table, detail, footer, help };
}

/** Where the table and detail pane go: table above, detail below (when shown), sized to the screen. */
export function placeWidgets(w: ConsoleWidgets, showDetail: boolean, singleType: boolean): void {
  const middle = Math.max(4, (w.screen.height as number) - HEADER - FOOTER);
  const tableHeight = !showDetail ? middle : singleType ? Math.min(ONE_ROW_TABLE, middle) : Math.max(5, Math.ceil(middle * 0.55));
  Object.assign(w.table, { top: HEADER, left: 0, width: '100%', height: tableHeight });
  Object.assign(w.detail, { top: HEADER + tableHeight, left: 0, width: '100%', height: Math.max(0, middle - tableHeight) });
  if (showDetail && middle - tableHeight >= 3) w.detail.show(); else w.detail.hide();
  w.help.height = Math.min(16, (w.screen.height as number) - 2);
}

/** Inner width of the table (inside its border and padding). */
export function tableInnerWidth(w: ConsoleWidgets): number {
  return Math.max(10, (w.table.width as number) - 4);
}

/** Rows the table shows at once (for PgUp/PgDn). */
export function tablePageSize(w: ConsoleWidgets): number {
  return Math.max(1, (w.table.height as number) - 4);
}
