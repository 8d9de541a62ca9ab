import type { Row } from '../table/rows.js';

// The console's cursor: which type is selected as the rows change and the keys move it.
// Pure; the selection is kept by type, so it stays on its reading when the order changes.

/** The type selected after a move: by `delta` rows, or to the first/last row; stays in range. */
export function moveSelection(rows: readonly Row[], selected: string | undefined, move: number | 'home' | 'end'): string | undefined {
  if (rows.length === 0) return selected;
  const current = Math.max(0, rows.findIndex((r) => r.type === selected));
  const target = move === 'home' ? 0 : move === 'end' ? rows.length - 1 : current + move;
  return rows[Math.min(rows.length - 1, Math.max(0, target))]!.type;
}
