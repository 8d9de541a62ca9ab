import blessed from 'blessed';
import type { FleetUnit } from '../table/fleet-units.js';
import { fleetScreenLines, type FleetFrame, type FleetLine, type FleetTone } from './fleet-screen.js';

// The fleet console (`telemetry fleet --follow` on a terminal, docs/fleet.md): the units of a
// fleet's database, polled every interval and drawn whole each time (ages move on with the
// database's clock). A failed poll keeps the last answer on screen and says why at the top;
// the next poll tries again. q, Esc or Ctrl-C quits.

/** What the CLI hands the fleet console. */
export interface FleetConsoleConfig {
  /** One poll of the database: the units judged and ordered; rejects with a one-sentence message. */
  poll(): Promise<readonly FleetUnit[]>;
  /** The database and table as the title shows them (password hidden). */
  where: string;
  intervalMs: number;
  noColor: boolean;
}

// each tone's blessed tags (none in monochrome)
const TAGS: Readonly<Record<FleetTone, readonly [string, string]>> = {
  title: ['{bold}', '{/bold}'], heads: ['{cyan-fg}', '{/cyan-fg}'], silent: ['{red-fg}{bold}', '{/bold}{/red-fg}'],
  warn: ['{yellow-fg}', '{/yellow-fg}'], plain: ['', ''], marker: ['{bold}', '{/bold}'], failure: ['{white-fg}{red-bg}', '{/red-bg}{/white-fg}'],
};

/** Run the console until the operator quits; resolves with exit code 0. */
export function runFleetConsole(config: FleetConsoleConfig): Promise<number> {
  return new Promise((resolve) => {
    const screen = blessed.screen({ smartCSR: true, fullUnicode: true, title: 'meridian fleet', warnings: false });
    const colours = !config.noColor && (screen.tput as unknown as { colors: number }).colors >= 8;
    const body = blessed.box({ parent: screen, top: 0, left: 0, width: '100%', height: '100%', tags: true, wrap: false });
    let frame: FleetFrame = { units: undefined, failure: undefined, where: config.where, intervalMs: config.intervalMs };
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const draw = (): void => {
      if (done) return;
      const lines = fleetScreenLines(frame, screen.width as number, screen.height as number);
      body.setContent(lines.map((line) => tagged(line, colours)).join('\n'));
      screen.render();
    };
    const poll = async (): Promise<void> => {
      const started = performance.now();
      try {
        frame = { ...frame, units: await config.poll(), failure: undefined };
      } catch (error) {
        frame = { ...frame, failure: error instanceof Error ? error.message : String(error) };
      }
      draw();
      if (!done) timer = setTimeout(() => void poll(), Math.max(0, config.intervalMs - (performance.now() - started)));
    };
    const quit = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      screen.destroy();
      resolve(0);
    };
    screen.key(['q', 'escape', 'C-c'], quit);
    screen.on('resize', draw);
    draw();
    void poll();
  });
}

// a line with its tone's tags; its text escaped (a version string may hold braces)
function tagged(line: FleetLine, colours: boolean): string {
  const text = blessed.escape(line.text);
  if (!colours || text === '') return text;
  const [open, close] = TAGS[line.tone];
  return `${open}${text}${close}`;
}
