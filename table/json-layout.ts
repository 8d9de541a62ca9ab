// JSON text laid out for reading, with every token as spelled: the layout of
// JSON.stringify(value, null, 2), but a number stays `-10.0` and a string keeps its escapes
// (decoding and encoding again would respell both). Pure.

/** `text` (one JSON value) indented by two spaces a level; empty containers stay `{}` and `[]`. */
export function indentJson(text: string): string {
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end - 1;
    } else if (c === '{' || c === '[') {
      const j = skipSpace(text, i + 1);
      if (text[j] === (c === '{' ? '}' : ']')) {
        out += c + text[j];
        i = j;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') {
      out += `,${newline()}`;
    } else if (c === ':') {
      out += ': ';
    } else if (!isSpace(c)) {
      out += c;
    }
  }
  return out;
}

/** Past the string whose opening quote is at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text[i]!)) i++;
  return i;
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\r' || c === '\t';
}
