import { terminalText } from '../lib/terminal-text.js';
import { VERSION } from '../lib/version.js';
import { chooseCommand, nearestCommands } from './command-words.js';
import { describeFailure } from './failure.js';
import type { CliIo } from './io.js';
import { joinNegativeValues, SWITCH_OPTIONS, UsageError, VALUE_OPTIONS } from './options.js';
import { buildProgram, COMMANDS } from './program.js';

// From argv to an exit code: find the command, let sade parse its options (an unknown
// option is a usage error, not sade's exit 1), run it, and turn any error into one message.

/** Run one command line (the arguments after the executable); never rejects. */
export async function dispatch(rawArgv: readonly string[], io: CliIo): Promise<number> {
  let command: string | undefined;
  const argv = joinNegativeValues(rawArgv);
  try {
    const prog = buildProgram(io);
    const choice = chooseCommand(argv, COMMANDS, io.prefix);
    if (choice.kind === 'unknown') {
      const known = (COMMANDS as readonly string[]).includes(choice.word) ? [choice.word] : nearestCommands(choice.word, COMMANDS);
      const named = known.map((c) => `"${io.name} ${io.prefix}${c}"`);
      const hint = named.length > 0 && (known[0] !== choice.word || io.prefix)
        ? `; did you mean ${named.length > 1 ? `${named.slice(0, -1).join(', ')} or ${named.at(-1)}` : named[0]}?` : '';
      throw new UsageError(`unknown command ${JSON.stringify(choice.word)}${hint}`);
    }
    if (choice.kind === 'none') {
      if (choice.help) {
        prog.help();
        return 0;
      }
      if (choice.version) {
        io.out(`${io.name}, ${VERSION}\n`);
        return 0;
      }
      throw new UsageError('missing command');
    }
    command = choice.name;
    const parsed = prog.parse(['node', io.name, ...choice.argv], {
      lazy: true, string: VALUE_OPTIONS, boolean: SWITCH_OPTIONS,
      unknown: (flag: string) => { throw new UsageError(`unknown option ${flag}`); },
    });
    if (!parsed) return 0; // --help or --version was printed
    return await (parsed.handler(...parsed.args) as Promise<number>);
  } catch (error) {
    const failure = describeFailure(error, { name: io.name, prefix: io.prefix, command });
    // the message may quote a type, run id or the daemon's detail: neutralised on a terminal
    io.err(io.stderrIsTTY ? terminalText(failure.message) : failure.message);
    return failure.code;
  }
}
