import { forEachMember, mayNameKey, spanString } from '../../lib/json-text.js';
import { readingMaxAge } from '../../lib/max-age.js';

// What a rollup takes from an envelope line: its type, its ts in ms, its data as spelled, and
// the max age the reading carries for itself. The live path and a rebuild both read it from
// the line, so that they fold the same thing.

/** The parts of one envelope line a rollup folds. */
export interface EnvelopeParts {
  type: string;
  at: number;
  data: string;
  /** The reading's own max age (seconds), undefined when it carries none. */
  ownMaxAge: number | undefined;
}

/** The parts of an envelope line, undefined when it is not an envelope with a readable ts. */
export function envelopeParts(line: string): EnvelopeParts | undefined {
  let type: string | undefined;
  let ts: string | undefined;
  let data: string | undefined;
  let meta: string | undefined;
  try {
    forEachMember(line, (key, span) => {
      if (key === 'type') type = spanString(line, span);
      else if (key === 'ts') ts = spanString(line, span);
      else if (key === 'data') data = line.slice(span.start, span.end);
      else if (key === 'meta') meta = line.slice(span.start, span.end);
    });
  } catch {
    return undefined;
  }
  const at = ts === undefined ? NaN : Date.parse(ts);
  if (type === undefined || data === undefined || !Number.isFinite(at)) return undefined;
  return { type, at, data, ownMaxAge: meta !== undefined && mayNameKey(meta, 'max_age_s') ? ownMaxAge(type, meta) : undefined };
}

function ownMaxAge(type: string, meta: string): number | undefined {
  try {
    return readingMaxAge({ type, meta: JSON.parse(meta) as unknown });
  } catch {
    return undefined;
  }
}
