// The opening every state file's reader shares: the text parsed as JSON, and one member of it
// that must be an object (not null, not an array). What the member's entries must hold is each
// reader's own concern.

/** A parsed document and its object member. */
export interface ObjectMember {
  readonly doc: Record<string, unknown>;
  readonly member: Record<string, unknown>;
}

/** The document `text` and its member `key`, or undefined when the text is not JSON or the member is not an object. */
export function objectMember(text: string, key: string): ObjectMember | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(doc)) return undefined;
  const member = doc[key];
  return isObject(member) ? { doc, member } : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
