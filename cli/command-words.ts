import { VALUE_OPTIONS } from './options.js';

// Which command argv names, found before sade sees argv: sade answers an unknown or missing
// command with its own message and exit 1, where this command line promises a one-line
// reason and exit 2. Pure.

/** What argv asks for. */
export type CommandChoice =
  /** A known command; `argv` puts its words first, so the parser cannot mistake them for an option's value. */
  | { kind: 'command'; name: string; argv: string[] }
  /** No command (or only the `telemetry` group word): help, version, or a usage error. */
  | { kind: 'none'; help: boolean; version: boolean }
  | { kind: 'unknown'; word: string };

/** Positions of the words that are not options or option values (up to `--`). */
function positionals(argv: readonly string[]): number[] {
  const found: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') {
      found.push(i);
      continue;
    }
    const name = arg.replace(/^-+/, '').split('=')[0]!;
    if (!arg.includes('=') && VALUE_OPTIONS.includes(name) && i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) i++;
  }
  return found;
}

/**
 * Find the command in `argv` (the arguments after the executable). `commands` are the bare
 * names (`run`, `stop`, ...); `prefix` is "telemetry " for `meridian`, whose commands all
 * sit under the `telemetry` group word.
 */
export function chooseCommand(argv: readonly string[], commands: readonly string[], prefix: string): CommandChoice {
  const at = positionals(argv);
  const group = prefix.trim();
  const flags = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);
  const none = { kind: 'none' as const, help: flags.some((a) => a === '--help' || a === '-h'), version: flags.some((a) => a === '--version' || a === '-v') };
  let words = at;
  if (group !== '') {
    if (at.length === 0) return none;
    if (argv[at[0]!] !== group) return { kind: 'unknown', word: argv[at[0]!]! };
    words = at.slice(1);
  }
  if (words.length === 0) return none;
  const word = argv[words[0]!]!;
  if (!commands.includes(word)) return { kind: 'unknown', word };
  const used = new Set(group === '' ? [words[0]!] : [at[0]!, words[0]!]);
  const rest = argv.filter((_, i) => !used.has(i));
  return { kind: 'command', name: `${prefix}${word}`, argv: [...`${prefix}${word}`.split(' '), ...rest] };
}

/**
 * The commands `word` was probably meant to be: those it begins (`hist` -> `history`, `s` ->
 * `status`, `stop`), else the nearest within two edits (insert, delete, substitute, or swap two
 * neighbours; one edit for a word of 2-3 letters), in the order of `commands`; [] when none is near.
 */
export function nearestCommands(word: string, commands: readonly string[]): string[] {
  const w = word.toLowerCase();
  const begun = w === '' ? [] : commands.filter((c) => c.startsWith(w));
  if (begun.length > 0) return begun;
  const reach = Math.min(2, Math.floor(w.length / 2));
  const distances = commands.map((c) => editDistance(w, c));
  const best = Math.min(...distances);
  return best > reach ? [] : commands.filter((_, i) => distances[i] === best);
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
