import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenAPIObject, ResponseObject } from 'openapi3-ts/oas31';
import type { RawAnswer } from './http.js';

// Real answers of the daemon checked against its OpenAPI document with ajv (JSON Schema
// 2020-12, the dialect of OpenAPI 3.1): status documented, media type and body as described.

/** Checks one answer; throws an Error naming the route, status and schema errors when it does not match. */
export type AnswerCheck = (method: string, path: string, answer: RawAnswer) => void;

type Operation = { responses: Record<string, ResponseObject> };

/** The `{name}` path templates of a document as regular expressions over raw request paths. */
function templates(doc: OpenAPIObject): [template: string, pattern: RegExp][] {
  return Object.keys(doc.paths ?? {}).map((template) => {
    const source = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+');
    return [template, new RegExp(`^${source}$`)];
  });
}

/** A JSON pointer (as a URI fragment) to the JSON schema of one documented answer. */
function answerPointer(template: string, method: string, status: number): string {
  const escaped = encodeURIComponent(template.replace(/~/g, '~0').replace(/\//g, '~1'));
  return `openapi.json#/paths/${escaped}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
}

/** Build the checker for `doc` (the document the daemon served). */
export function answerChecker(doc: OpenAPIObject): AnswerCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...doc, $id: 'openapi.json' } as object);
  const compiled = new Map<string, ValidateFunction>();
  const paths = templates(doc);
  const validateBody = (pointer: string, what: string, answer: RawAnswer) => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: pointer });
      compiled.set(pointer, validate);
    }
    if (answer.json === undefined || !validate(answer.json)) {
      throw new Error(`${what} ${answer.status}: the body does not match the document: ${ajv.errorsText(validate.errors)}\n${answer.text.slice(0, 300)}`);
    }
  };
  return (method, rawPath, answer) => {
    const path = rawPath.split('?')[0]!;
    const found = paths.find(([, pattern]) => pattern.test(path));
    const op = found && (doc.paths![found[0]] as Record<string, Operation>)[method.toLowerCase()];
    if (!op) {
      // an unknown path or method: the document's NotFound / MethodNotAllowed answers
      const expected = found ? 405 : 404;
      if (answer.status !== expected) throw new Error(`${method} ${path} is not in the document, yet answered ${answer.status}`);
      const name = found ? 'MethodNotAllowed' : 'NotFound';
      return validateBody(`openapi.json#/components/responses/${name}/content/application~1json/schema`, `${method} ${path}`, answer);
    }
    const template = found[0];
    const response = op.responses[String(answer.status)];
    if (!response) throw new Error(`${method} ${template}: status ${answer.status} is not documented (${answer.text.slice(0, 200)})`);
    const media = Object.keys(response.content ?? {});
    if (media.length === 0) {
      if (answer.text !== '') throw new Error(`${method} ${template} ${answer.status}: documented without a body, got ${answer.text.slice(0, 200)}`);
      return;
    }
    const given = String(answer.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (!media.includes(given)) throw new Error(`${method} ${template} ${answer.status}: content type ${given}, documented ${media.join(', ')}`);
    if (given === 'application/json') validateBody(answerPointer(template, method, answer.status), `${method} ${template}`, answer);
  };
}
