// A string of the rule language as written (its quotes included) read as JSON reads one: the
// escapes are JSON's, `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` `\uXXXX`, and `\'` in a string
// in single quotes; any other backslash is refused (jsep would read `\u00e9` as `u00e9`, a
// string no reading holds: hostile tester I, finding 4).

const SIMPLE: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** The value of the string literal `raw`, or the offset in it (and why) of an escape that is not one. */
export function readStringLiteral(raw: string): { value: string } | { offset: number; problem: string } {
  const quote = raw[0]!;
  let value = '';
  for (let i = 1; i < raw.length - 1; i++) {
    const ch = raw[i]!;
    if (ch !== '\\') {
      value += ch;
      continue;
    }
    const next = raw[i + 1] ?? '';
    if (next in SIMPLE || (next === "'" && quote === "'")) {
      value += next === "'" ? "'" : SIMPLE[next];
      i++;
    } else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(raw.slice(i + 2, i + 6))) {
      value += String.fromCharCode(parseInt(raw.slice(i + 2, i + 6), 16));
      i += 5;
    } else {
      return { offset: i, problem: `\\${next} is not an escape of the language (the escapes are JSON's: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)` };
    }
  }
  return { value };
}
