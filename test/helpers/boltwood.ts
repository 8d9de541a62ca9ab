// The Boltwood Clarity II one-line format read back by its columns (docs/integrations.md):
// each field at its fixed place, the separators blank, the line ending in CRLF.

/** The fields by name, 1-based inclusive columns, as the Clarity II manual gives them. */
export const BOLTWOOD_COLUMNS: ReadonlyArray<[name: string, from: number, to: number]> = [
  ['date', 1, 10], ['time', 12, 22], ['T', 24, 24], ['V', 26, 26], ['SkyT', 28, 33], ['AmbT', 35, 40], ['SenT', 41, 47],
  ['Wind', 49, 54], ['Hum', 56, 58], ['DewPt', 60, 65], ['Hea', 67, 69], ['R', 71, 71], ['W', 73, 73], ['Since', 75, 79],
  ['Now', 81, 92], ['c', 94, 94], ['w', 96, 96], ['r', 98, 98], ['d', 100, 100], ['C', 102, 102], ['A', 104, 104],
];

/** The fields of a whole line (trimmed), or undefined when it is not one (a torn or partial read). */
export function parseBoltwood(text: string): Record<string, string> | undefined {
  if (!/^[0-9 .:CFKMm-]{104}\r\n$/.test(text)) return undefined;
  const fields: Record<string, string> = {};
  let at = 1;
  for (const [name, from, to] of BOLTWOOD_COLUMNS) {
    // every character between two fields is a blank
    if (text.slice(at - 1, from - 1).trim() !== '') return undefined;
    const value = text.slice(from - 1, to).trim();
    if (value === '' || value.includes(' ')) return undefined;
    fields[name] = value;
    at = to + 1;
  }
  return fields;
}
