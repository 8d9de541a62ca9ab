import { MeridianError } from '../../lib/errors.js';
import { TYPE_FORBIDDEN_CHARACTER } from '../../lib/wire.js';

// The one reader of a request's query string, for every endpoint that takes one (GET /history,
// GET /stream, GET /current, POST /events; a path that takes none never reads it): split on
// `&`, names and values percent-decoded (`+` is a space), a `type` list split on raw commas
// before decoding, repeated names kept in order. What differs between endpoints is only their QueryPolicy: the names they
// know, and whether other names are refused or ignored (docs/http-api.md, "Query parameters").
// Every mistake is a 422 INVALID_QUERY whose one sentence names the parameter.

/** Which names an endpoint takes, and what an unknown name does: refused (422) or ignored (never read). */
export interface QueryPolicy {
  readonly known: readonly string[];
  readonly unknown: 'refuse' | 'ignore';
}

/** The known parameters of a query by name, each with its values in order (a `type` list already split). */
export type Query = ReadonlyMap<string, readonly string[]>;

/** How `true|false` flags are spelled: only these two. */
export const TRUE_FALSE: Readonly<Record<string, boolean>> = { true: true, false: false };

/** Read the query part of a request URL by an endpoint's policy. */
export function readQuery(url: string, policy: QueryPolicy): Query {
  const query = new Map<string, string[]>();
  const at = url.indexOf('?');
  if (at === -1) return query;
  for (const pair of url.slice(at + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq === -1 ? pair : pair.slice(0, eq), 'The name of a query parameter');
    if (!policy.known.includes(name)) {
      if (policy.unknown === 'ignore') continue;
      const takes = policy.known.length > 0 ? `this path takes ${policy.known.join(', ')}` : 'this path takes none';
      invalid(`unknown query parameter ${JSON.stringify(name)}; ${takes}.`);
    }
    const raw = eq === -1 ? '' : pair.slice(eq + 1);
    // a comma inside a type is sent as %2C: the list is split before decoding
    const values = name === 'type' ? raw.split(',').map((v) => decode(v, 'type')) : [decode(raw, name)];
    query.set(name, [...(query.get(name) ?? []), ...values]);
  }
  return query;
}

/** The one value of a parameter (undefined when absent); given twice is a mistake. */
export function single(query: Query, name: string): string | undefined {
  const values = query.get(name);
  if (values === undefined) return undefined;
  if (values.length > 1) invalid(`${name} is given more than once.`);
  return values[0];
}

/** The set of types asked for (`type=a,b`, or repeated), or undefined for every type. */
export function typesParam(query: Query): Set<string> | undefined {
  const values = query.get('type');
  if (values === undefined) return undefined;
  for (const type of values) {
    if (type === '' || type.length > 256 || TYPE_FORBIDDEN_CHARACTER.test(type)) {
      invalid(`type must be a list of event types (1-256 characters, no control characters, comma-separated); got ${JSON.stringify(type)}.`);
    }
  }
  return new Set(values);
}

/** A flag (`true|false` unless the endpoint documents more spellings), undefined when absent. */
export function flagParam(query: Query, name: string, spellings: Readonly<Record<string, boolean>> = TRUE_FALSE): boolean | undefined {
  const text = single(query, name);
  if (text === undefined) return undefined;
  if (Object.hasOwn(spellings, text)) return spellings[text];
  invalid(`${name} must be true or false; got ${JSON.stringify(text)}.`);
}

/** A 422 INVALID_QUERY with this sentence. */
export function invalid(detail: string): never {
  throw new MeridianError('INVALID_QUERY', detail);
}

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    invalid(`${what} is not valid percent-encoding: ${JSON.stringify(text.slice(0, 80))}.`);
  }
}
