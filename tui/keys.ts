import type blessed from 'blessed';

// The console's keys, bound once on the screen. Handlers only change state and redraw;
// quitting resolves the console's promise (never process.exit here).

/** What the keys do. */
export interface KeyActions {
  move(by: number | 'home' | 'end'): void;
  page(direction: 1 | -1): void;
  toggleDetail(): void;
  filter(): void;
  cycleSort(): void;
  togglePause(): void;
  toggleHelp(): void;
  escape(): void;
  quit(): void;
}

/** Bind every key of the console to its action. */
export function bindKeys(screen: blessed.Widgets.Screen, actions: KeyActions): void {
  screen.key(['up', 'k'], () => actions.move(-1));
  screen.key(['down', 'j'], () => actions.move(1));
  screen.key(['pageup'], () => actions.page(-1));
  screen.key(['pagedown'], () => actions.page(1));
  screen.key(['home', 'g'], () => actions.move('home'));
  screen.key(['end', 'S-g'], () => actions.move('end'));
  screen.key(['enter'], () => actions.toggleDetail());
  screen.key(['/'], () => actions.filter());
  screen.key(['s'], () => actions.cycleSort());
  screen.key(['p'], () => actions.togglePause());
  screen.key(['?'], () => actions.toggleHelp());
  screen.key(['escape'], () => actions.escape());
  screen.key(['q', 'C-c'], () => actions.quit());
}
