// "A whole number from A to B": the one bound check under every setting, option and query
// parameter that takes a count. Each caller keeps its own error form (a ConfigError at start,
// a 422 INVALID_QUERY for a request); what counts as a whole number is decided here.

/**
 * `value` as a whole number in [min, max], else undefined: a safe integer (a number, or a bigint
 * from TOML), or text of digits (surrounding spaces allowed unless `exact`: query parameters).
 */
export function wholeNumberIn(value: unknown, min: number, max: number, exact = false): number | undefined {
  let n = NaN;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'bigint') n = Number(value);
  else if (typeof value === 'string' && (exact ? /^\d+$/ : /^\s*\d+\s*$/).test(value)) n = Number(value);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
}
