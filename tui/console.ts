import type { TelemetryClient } from '../client/client.js';
import { watchCurrent } from '../client/watch.js';
import { monotonicNow, type Clock } from '../lib/time.js';
import type { ThemeName } from '../table/palette.js';
import { nextSort } from '../table/rows.js';
import { AlarmKeeper } from './alarm-keeper.js';
import { ChartKeeper, type ChartSpan } from './chart-keeper.js';
import { chartColumns, fieldAt, renderChart } from './chart-view.js';
import { renderAlarmLine } from './alarm-line.js';
import { applyUpdate, daemonNow, framed, initialState, type ConsoleState } from './console-state.js';
import { detailScrollMax, renderDetail } from './detail.js';
import { tableRenderer } from './event-table.js';
import { editFilter, type KeyPress } from './filter-input.js';
import { renderHeader } from './header.js';
import { HELP_LINES, renderHelp } from './help.js';
import { bindKeys } from './keys.js';
import { createWidgets, placeWidgets, tableInnerWidth, tablePageSize, type ConsoleWidgets } from './layout.js';
import { screenModeler, type ScreenModel } from './screen-model.js';
import { moveSelection } from './selection.js';
import { TrendKeeper } from './trend-keeper.js';

// The live console: state, the shared watch loop (stream, or polls), a draw every second
// (ages move on), keys and drawing, wired together.

/** Draws that updates ask for come at most this often (a stream can bring hundreds a second). */
const DRAW_EVERY_MS = 100;

/** Everything the console runs on (resolved by the entry). */
export interface ConsoleConfig {
  client: TelemetryClient;
  clock: Clock;
  address: string;
  type: string | undefined;
  intervalMs: number;
  /** --max-age: the limit of every type (ms) instead of the daemon's. */
  limitMs: number | undefined;
  theme: ThemeName;
  noColor: boolean;
  /** The operator's name, in acknowledgements and shelvings. */
  user: string;
  /** Ring the terminal bell when an alarm is raised (`--bell`). */
  bell: boolean;
}

/** Run the console until the operator quits; resolves with exit code 0. */
export function runConsole(config: ConsoleConfig): Promise<number> {
  return new Promise((resolve) => {
    const w = createWidgets(config.noColor, config.theme, `meridian ${config.address}`);
    let state: ConsoleState = initialState();
    const trends = new TrendKeeper(config.client, () => daemonNow(state, config.clock.now()), () => draw());
    const charts = new ChartKeeper(config.client, () => daemonNow(state, config.clock.now()), () => draw());
    const alarms = new AlarmKeeper({
      client: config.client, intervalMs: config.intervalMs, user: config.user, bell: config.bell, ring: () => w.screen.program.bell(), changed: () => draw(),
    });
    const paint = painter(w, config, { trends, charts }, alarms);
    // the alarm line takes a row while the daemon has alarms: the widgets move when it comes or goes
    let alarmLine = false;
    let model: ScreenModel | undefined;
    let tick: NodeJS.Timeout | undefined;
    let soon: NodeJS.Timeout | undefined;
    let done = false;
    // stopped by Ctrl-Z: nothing is drawn until `fg` (a timer that fires first would draw on the shell's screen)
    let suspended = false;

    const draw = (): void => {
      clearTimeout(soon);
      soon = undefined;
      if (done || suspended) return;
      if ((alarms.alarms?.length ?? 0) > 0 !== alarmLine) {
        relayout();
        return;
      }
      model = paint(state);
      state = framed(state); // the change marks of the next frame are against this one
    };
    const drawSoon = (): void => {
      soon ??= setTimeout(draw, DRAW_EVERY_MS);
    };
    const relayout = (): void => {
      alarmLine = (alarms.alarms?.length ?? 0) > 0;
      placeWidgets(w, state.detail, config.type !== undefined, HELP_LINES.length, alarmLine, state.chart);
      draw();
    };
    const everySecond = (): void => {
      draw();
      tick = setTimeout(everySecond, 1000);
    };
    const watch = watchCurrent({
      client: config.client, clock: config.clock, type: config.type, intervalMs: config.intervalMs, status: true,
    }, (update) => {
      if (state.paused) return; // arrived after `p`: the view stays frozen
      state = applyUpdate(state, update, config.type);
      if (update.kind === 'view') {
        trends.add(update.changed);
        charts.add(update.changed);
      }
      drawSoon();
    });
    const quit = (): void => {
      if (done) return;
      done = true;
      watch.stop();
      trends.stop();
      charts.stop();
      alarms.stop();
      clearTimeout(tick);
      clearTimeout(soon);
      w.screen.destroy();
      resolve(0);
    };
    const get = () => state;
    const set = (next: ConsoleState) => { state = next; };
    const stop = (): void => {
      suspended = true;
      suspend(w, () => {
        suspended = false;
        relayout();
      });
    };
    bindKeys(w.screen, actions(w, config, get, set, () => model, { draw, relayout, quit, watch, suspend: stop, alarms, charts }));
    w.screen.on('resize', relayout);
    relayout();
    alarms.start();
    tick = setTimeout(everySecond, 1000);
  });
}

/** Draws the whole screen from a state; returns the model drawn (the keys move through its rows). */
function painter(w: ConsoleWidgets, config: ConsoleConfig, { trends, charts }: { trends: TrendKeeper; charts: ChartKeeper }, alarms: AlarmKeeper): (state: ConsoleState) => ScreenModel {
  const drawTable = tableRenderer(w);
  const screenModel = screenModeler();
  return (state) => {
    const page = tablePageSize(w);
    const localNow = config.clock.now();
    const model = screenModel(state, { localNow, localMono: monotonicNow(config.clock), limitMs: config.limitMs, type: config.type, page });
    const row = model.rows[model.selected];
    state.selected = row?.type;
    state.top = model.top;
    drawTable(model, state.order, page, tableInnerWidth(w), state.textOf);
    renderHeader(w, state, { address: config.address, intervalMs: config.intervalMs, type: config.type,
      shown: model.shownTypes, total: model.total, stale: model.staleTotal });
    renderAlarmLine(w, alarms.alarms, alarms.note, daemonNow(state, localNow));
    trends.select(state.detail && row?.envelope ? row.type : undefined);
    if (state.detail) {
      renderDetail(w, row, { type: config.type, filter: state.filter, focused: state.focus === 'detail', scroll: state.detailScroll, textOf: state.textOf },
        { trend: trends.current, now: daemonNow(state, localNow), ascii: w.theme.name === 'mono' });
    }
    const chartType = state.chart ? row?.type : undefined;
    charts.select(chartType, state.chartSpan, chartColumns(w.chart.width as number));
    if (state.chart) renderChart(w, charts.current, { type: chartType, span: state.chartSpan, field: state.chartField, now: daemonNow(state, localNow) });
    renderHelp(w, { show: state.help, draft: state.prompting ? state.draft : undefined, oneType: config.type !== undefined, paused: state.paused });
    w.screen.render();
    return model;
  };
}

type Hooks = { draw(): void; relayout(): void; quit(): void; suspend(): void; watch: { pause(): void; resume(): void }; alarms: AlarmKeeper; charts: ChartKeeper };

function actions(w: ConsoleWidgets, config: ConsoleConfig, get: () => ConsoleState, set: (s: ConsoleState) => void,
  model: () => ScreenModel | undefined, hooks: Hooks) {
  const update = (change: Partial<ConsoleState>, relayout = false): void => {
    set({ ...get(), ...change });
    if (relayout) hooks.relayout(); else hooks.draw();
  };
  const rows = () => model()?.rows ?? [];
  const select = (by: number | 'home' | 'end') => update({ selected: moveSelection(rows(), get().selected, by), moved: true, detailScroll: 0 });
  const scrollDetail = (by: number | 'home' | 'end') => {
    const max = detailScrollMax(w);
    const at = by === 'home' ? 0 : by === 'end' ? max : Math.max(0, Math.min(max, get().detailScroll + by));
    update({ detailScroll: at });
  };
  const detailFocused = () => get().focus === 'detail' && get().detail;
  // in the chart view the movement keys pick the field
  const chartField = (by: number | 'home' | 'end') => update({ chartField: by === 'home' ? 0 : by === 'end' ? -1 : fieldAt(hooks.charts.current, get().chartField) + by });
  return {
    move: (by: number | 'home' | 'end') => (get().chart ? chartField(by) : detailFocused() ? scrollDetail(by) : select(by)),
    toggleChart: () => update({ chart: !get().chart, chartField: 0, help: false }, true),
    chartSpan: (span: ChartSpan) => update({ chart: true, chartSpan: span, help: false }, !get().chart),
    page: (direction: 1 | -1) => (detailFocused()
      ? scrollDetail(direction * Math.max(1, (w.detail.height as number) - 3))
      : select(direction * tablePageSize(w))),
    toggleDetail: () => update({ detail: !get().detail, focus: 'table' }, true),
    switchFocus: () => update({ focus: get().focus === 'table' && get().detail ? 'detail' : 'table' }),
    cycleSort: () => update({ order: { ...get().order, key: nextSort(get().order.key) } }),
    reverseSort: () => update({ order: { ...get().order, reverse: !get().order.reverse } }),
    toggleHelp: () => update({ help: !get().help }),
    escape: () => {
      const s = get();
      if (s.help) update({ help: false });
      else if (s.chart) update({ chart: false }, true);
      else if (s.focus === 'detail') update({ focus: 'table' });
      else if (s.filter !== '') update({ filter: '' });
    },
    suspend: hooks.suspend,
    ackAlarm: () => void hooks.alarms.ack(),
    shelveAlarm: () => void hooks.alarms.shelve(),
    togglePause: () => {
      const paused = !get().paused;
      if (paused) hooks.watch.pause(); else hooks.watch.resume();
      update({ paused });
    },
    filter: () => {
      if (config.type === undefined) update({ prompting: true, draft: get().filter, help: false });
    },
    prompting: () => get().prompting,
    promptKey: (ch: string | undefined, key: KeyPress) => {
      const edit = editFilter(get().draft, ch, key);
      if (edit.done === 'apply') update({ filter: edit.text.trim(), prompting: false, top: 0 });
      else if (edit.done === 'cancel') update({ prompting: false });
      else update({ draft: edit.text });
    },
    quit: hooks.quit,
  };
}

/**
 * Ctrl-Z: put the terminal back (main screen, cursor, cooked mode), stop this process
 * (SIGTSTP) and redraw on SIGCONT (`fg`). blessed's own sigtstp buffers the sequences that
 * leave the alternate screen and then silences the output before they are written: here
 * they are written at once.
 */
function suspend(w: ConsoleWidgets, redraw: () => void): void {
  const program = w.screen.program as unknown as { useBuffer: boolean; flush(): void };
  const screen = w.screen as unknown as { sigtstp(resumed: () => void): void };
  program.flush();
  program.useBuffer = false;
  try {
    screen.sigtstp(redraw);
  } finally {
    program.useBuffer = true;
  }
}
