// A request body's Content-Encoding. Meridian reads bodies as sent and decodes none: a body
// declared compressed (gzip, deflate, br, ...) is refused rather than read as if it were plain
// (RFC 9110 section 8.4: a coding the server does not understand is 415).

/** The coding named by a Content-Encoding header other than `identity` (lower case), or undefined. */
export function bodyCoding(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text === undefined) return undefined;
  const codings = text.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  return codings.length === 0 ? undefined : codings.join(', ');
}
