import type blessed from 'blessed';
import type { ChartSpan } from './chart-keeper.js';
import type { KeyPress } from './filter-input.js';

// The console's keys, dispatched from one keypress listener on the screen. While the filter
// prompt is open it gets every key but Ctrl-C. Handlers only change state and redraw;
// quitting resolves the console's promise (never process.exit here).

/** What the keys do. */
export interface KeyActions {
  /** Move the selection (or, with the detail pane focused, scroll it). */
  move(by: number | 'home' | 'end'): void;
  page(direction: 1 | -1): void;
  toggleDetail(): void;
  /** Tab: the movement keys go to the table or to the detail pane. */
  switchFocus(): void;
  filter(): void;
  cycleSort(): void;
  reverseSort(): void;
  togglePause(): void;
  /** `a`: acknowledge the alarm on the alarm line. */
  ackAlarm(): void;
  /** `S`: shelve it (for an hour). */
  shelveAlarm(): void;
  toggleHelp(): void;
  /** `c`: open or close the chart view of the selected type. */
  toggleChart(): void;
  /** `1` `6` `2` `7`: the chart's span, 1 h / 6 h / 24 h / 7 d (the view opens if closed). */
  chartSpan(span: ChartSpan): void;
  /** Esc: close the help, else give the table the focus back, else clear the filter. */
  escape(): void;
  suspend(): void;
  quit(): void;
  /** The filter prompt is open. */
  prompting(): boolean;
  /** A key typed at the filter prompt. */
  promptKey(ch: string | undefined, key: KeyPress): void;
}

/** Key (blessed's `key.full`) -> action, outside the prompt. */
const KEY_MAP: Readonly<Record<string, (a: KeyActions) => void>> = {
  up: (a) => a.move(-1), k: (a) => a.move(-1),
  down: (a) => a.move(1), j: (a) => a.move(1),
  pageup: (a) => a.page(-1), pagedown: (a) => a.page(1),
  home: (a) => a.move('home'), g: (a) => a.move('home'),
  end: (a) => a.move('end'), 'S-g': (a) => a.move('end'),
  enter: (a) => a.toggleDetail(),
  tab: (a) => a.switchFocus(),
  '/': (a) => a.filter(),
  s: (a) => a.cycleSort(),
  r: (a) => a.reverseSort(),
  p: (a) => a.togglePause(),
  a: (a) => a.ackAlarm(),
  'S-s': (a) => a.shelveAlarm(),
  '?': (a) => a.toggleHelp(),
  c: (a) => a.toggleChart(),
  1: (a) => a.chartSpan('1h'), 6: (a) => a.chartSpan('6h'), 2: (a) => a.chartSpan('24h'), 7: (a) => a.chartSpan('7d'),
  escape: (a) => a.escape(),
  'C-z': (a) => a.suspend(),
  q: (a) => a.quit(),
};

/** Listen to the screen's keys and run their actions. */
export function bindKeys(screen: blessed.Widgets.Screen, actions: KeyActions): void {
  screen.on('keypress', (ch: string | undefined, key: KeyPress | undefined) => {
    if (!key) return;
    if (key.full === 'C-c') actions.quit();
    else if (actions.prompting()) actions.promptKey(ch, key);
    else if (key.full !== undefined && Object.hasOwn(KEY_MAP, key.full)) KEY_MAP[key.full]!(actions);
  });
}
