// The one spelling of an event-type filter in a query string, for GET /current, /history and
// /stream: `type=a,b`, each name percent-encoded so that a comma inside a name travels as %2C
// while the commas between names stay as they are (the daemon splits on raw commas only).

/** The `type=` parameter of a filter, or undefined when there is none (every type); an empty list is sent as `type=` and refused by the daemon. */
export function typeParam(types: readonly string[] | undefined): string | undefined {
  return types === undefined ? undefined : listParam('type', types);
}

/** A parameter of a comma-separated list (`type`, a rollup's `fields`), spelled the same way: each name percent-encoded, the commas between them raw. */
export function listParam(name: string, values: readonly string[]): string {
  return `${name}=${values.map(encodeURIComponent).join(',')}`;
}
