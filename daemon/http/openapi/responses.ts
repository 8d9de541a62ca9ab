import type { OperationObject, ResponsesObject, SchemaObject } from 'openapi3-ts/oas31';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../lib/errors.js';
import { ref } from './schemas.js';

// Building blocks of operations: a JSON answer, and error answers grouped by status with the
// exact codes each status can carry (from the error catalogue, so statuses never drift).

/** Error answers that carry more than `detail` and `code`: their own schema, by code. */
export type ErrorBodies = Partial<Record<ErrorCode, SchemaObject>>;

/** Errors any request can meet: the guard's refusals and an unexpected failure. */
const ALWAYS: ErrorCode[] = ['INVALID_HOST', 'FORBIDDEN', 'INTERNAL'];

/** A 200 answer with a JSON body of `schema`. */
export function jsonAnswer(description: string, schema: SchemaObject): ResponsesObject {
  return { 200: { description, content: { 'application/json': { schema } } } };
}

/**
 * The error answers of an operation: one response per status, its `code` restricted to the
 * given codes (plus INVALID_HOST, FORBIDDEN and INTERNAL, and UNAUTHORIZED unless the route is open).
 */
export function errorAnswers(codes: ErrorCode[], open = false, bodies: ErrorBodies = {}): ResponsesObject {
  const all = new Set<ErrorCode>([...codes, ...ALWAYS, ...(open ? [] : ['UNAUTHORIZED' as const])]);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: ResponsesObject = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    list.sort();
    const plain = list.filter((code) => !bodies[code]);
    const own = list.flatMap((code) => bodies[code] ?? []);
    const schemas = [...(plain.length > 0 ? [errorSchema(plain)] : []), ...own];
    responses[String(status)] = {
      description: list.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].meaning}`).join(' '),
      content: { 'application/json': { schema: schemas.length === 1 ? schemas[0]! : { oneOf: schemas } } },
    };
  }
  return responses;
}

/** The Error schema with `code` limited to `codes`. */
export function errorSchema(codes: ErrorCode[]): SchemaObject {
  return { allOf: [ref('Error'), { properties: { code: { enum: codes } } }] };
}

/** An operation: summary, then its answers and errors; `open` routes need no token. */
export function operation(fields: Omit<OperationObject, 'responses'> & {
  answers: ResponsesObject; errors?: ErrorCode[]; errorBodies?: ErrorBodies; open?: boolean;
}): OperationObject {
  const { answers, errors = [], errorBodies, open = false, ...rest } = fields;
  return {
    ...rest,
    ...(open ? { security: [] } : {}),
    responses: { ...answers, ...errorAnswers(errors, open, errorBodies) },
  };
}

/** What reading a JSON request body can fail with. */
export const BODY_ERRORS: ErrorCode[] = ['MALFORMED_JSON', 'BODY_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_ENCODING', 'INVALID_BODY'];
