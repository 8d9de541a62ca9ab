// A JSON number read straight from the text it is spelled in, without cutting a string for it:
// what the readers of recorded lines do for every number of a reading (the night report's
// weather fields, the rule language's flat members).

// a mantissa of at most 15 digits is an exact double, and so is 10^k up to 10^22
const MAX_EXACT_DIGITS = 15;
const POWERS = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * The number text[start, end) spells, as Number() reads it. Plain decimals of up to 15 digits
 * are read without a copy (digits / 10^k is exact: both are exact doubles and division rounds
 * correctly); any other spelling goes through Number().
 */
export function numberAt(text: string, start: number, end: number): number {
  let i = start;
  const negative = text.charCodeAt(i) === 45;
  if (negative) i++;
  let digits = 0;
  let mantissa = 0;
  let scale = -1;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      if (mantissa > 0 || scale >= 0) digits++;
      if (scale >= 0) scale++;
    } else if (c === 46 && scale < 0) scale = 0;
    else return Number(text.slice(start, end));
  }
  if (digits > MAX_EXACT_DIGITS || scale === 0 || scale > 22) return Number(text.slice(start, end));
  const value = scale > 0 ? mantissa / POWERS[scale]! : mantissa;
  return negative ? -value : value;
}
