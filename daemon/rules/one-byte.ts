// V8 keeps a string two bytes a character when it was cut from a text holding one character
// past U+00FF, whatever the characters of the piece itself. A type name or a field cut from
// an expression that holds one such character (a string literal in Japanese, say) would then
// be a two-byte string beside the readings' one-byte texts: every look-up and search with it
// takes V8's slower mixed path, and every event text built from it (the verdict's reasons) is
// two-byte too, which turns the JSON scanners of the ingest path megamorphic for the life of
// the daemon (docs/performance.md, "Fourth round").

/** `text` as a one-byte string when all its characters fit in one (String.fromCharCode makes those one-byte), else as it is. */
export function oneByte(text: string): string {
  const codes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff) return text;
    codes.push(code);
  }
  return String.fromCharCode(...codes);
}
