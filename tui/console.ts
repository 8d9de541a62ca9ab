import type { TelemetryClient } from '../client/client.js';
import type { Clock } from '../lib/time.js';
import { watchCurrent } from '../client/watch.js';
import { buildRows, nextSort, type Row } from '../table/rows.js';
import { applyUpdate, daemonNow, initialState, type ConsoleState } from './console-state.js';
import { renderDetail } from './detail.js';
import { tableRenderer } from './event-table.js';
import { renderHeader } from './header.js';
import { renderHelp } from './help.js';
import { editFilter, type KeyPress } from './filter-input.js';
import { bindKeys } from './keys.js';
import { createWidgets, placeWidgets, tableInnerWidth, tablePageSize, type ConsoleWidgets } from './layout.js';
import { moveSelection, selectedIndex } from './selection.js';
import { TrendKeeper } from './trend-keeper.js';

// The live console: state, the shared watch loop (stream, or polls), one-second tick, keys
// and drawing, wired together.

/** Everything the console runs on (resolved by the entry). */
export interface ConsoleConfig {
  client: TelemetryClient;
  clock: Clock;
  address: string;
  type: string | undefined;
  intervalMs: number;
  staleMs: number;
  noColor: boolean;
  /** How long a changed row stays highlighted (ms). */
  flashMs: number;
}

/** Run the console until the operator quits; resolves with exit code 0. */
export function runConsole(config: ConsoleConfig): Promise<number> {
  return new Promise((resolve) => {
    const w = createWidgets(config.noColor, `meridian ${config.address}`);
    let state: ConsoleState = initialState();
    const trends = new TrendKeeper(config.client, () => daemonNow(state, config.clock.now()), () => draw());
    const paint = painter(w, config, trends);
    let rows: Row[] = [];
    let tick: NodeJS.Timeout | undefined;
    let done = false;

    const draw = (): void => {
      if (!done) rows = paint(state);
    };
    const relayout = (): void => {
      placeWidgets(w, state.detail, config.type !== undefined);
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
      if (update.kind === 'view') trends.add(update.changed);
      draw();
    });
    const quit = (): void => {
      if (done) return;
      done = true;
      watch.stop();
      trends.stop();
      clearTimeout(tick);
      w.screen.destroy();
      resolve(0);
    };
    bindKeys(w.screen, actions(w, config, () => state, (next) => { state = next; }, () => rows, { draw, relayout, quit, watch }));
    w.screen.on('resize', relayout);
    relayout();
    tick = setTimeout(everySecond, 1000);
  });
}

/** Draws the whole screen from a state; returns the rows shown (the keys move through them). */
function painter(w: ConsoleWidgets, config: ConsoleConfig, trends: TrendKeeper): (state: ConsoleState) => Row[] {
  const drawTable = tableRenderer(w, config.noColor);
  return (state) => {
    const now = daemonNow(state, config.clock.now());
    const rows = buildRows(state.snapshot ?? {}, { ...config, now, changedAt: state.changedAt, filter: state.filter, sort: state.sort });
    const index = selectedIndex(rows, state.selected);
    state.selected = rows[index]?.type;
    drawTable(rows, index, tableInnerWidth(w));
    renderHeader(w, state, { ...config, shown: rows.length }, config.noColor);
    trends.select(state.detail ? state.selected : undefined);
    if (state.detail) renderDetail(w, rows[index], config.type, state.filter, { trend: trends.current, now, ascii: config.noColor });
    renderHelp(w, state.help, state.prompting ? state.draft : undefined, config.type !== undefined);
    w.screen.render();
    return rows;
  };
}

type Hooks = { draw(): void; relayout(): void; quit(): void; watch: { pause(): void; resume(): void } };

function actions(w: ConsoleWidgets, config: ConsoleConfig, get: () => ConsoleState, set: (s: ConsoleState) => void,
  rows: () => Row[], hooks: Hooks) {
  const update = (change: Partial<ConsoleState>, relayout = false): void => {
    set({ ...get(), ...change });
    if (relayout) hooks.relayout(); else hooks.draw();
  };
  return {
    move: (by: number | 'home' | 'end') => update({ selected: moveSelection(rows(), get().selected, by) }),
    page: (direction: 1 | -1) => update({ selected: moveSelection(rows(), get().selected, direction * tablePageSize(w)) }),
    toggleDetail: () => update({ detail: !get().detail }, true),
    cycleSort: () => update({ sort: nextSort(get().sort) }),
    toggleHelp: () => update({ help: !get().help }),
    escape: () => update({ help: false }),
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
      if (edit.done === 'apply') update({ filter: edit.text.trim(), prompting: false });
      else if (edit.done === 'cancel') update({ prompting: false });
      else update({ draft: edit.text });
    },
    quit: hooks.quit,
  };
}
