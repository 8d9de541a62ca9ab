import { Validator } from '@seriousme/openapi-schema-validator';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openApiDocument } from '../daemon/http/openapi/document.js';
import { ERROR_CATALOGUE } from '../lib/errors.js';
import { VERSION } from '../lib/version.js';
import { withTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';

// GET /openapi.json: a valid OpenAPI 3.1 document naming exactly the routes of the route table.

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `METHOD /path/{param}` for every operation of a document, sorted. */
function documentedRoutes(doc: OpenAPIObject): string[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => m in item).map((m) => `${m.toUpperCase()} ${path}`)).sort();
}

test('the served document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', () => withTestDaemon({}, async (d) => {
  const answer = await request(d.url, '/openapi.json');
  assert.is(answer.status, 200);
  assert.is(answer.headers['content-type'], 'application/json');
  const validator = new Validator();
  const result = await validator.validate(answer.json);
  assert.equal(result.errors, undefined);
  assert.is(result.valid, true);
  assert.is(validator.version, '3.1');
  assert.is(answer.json.info.version, VERSION);
  assert.equal(answer.json, JSON.parse(JSON.stringify(openApiDocument(VERSION))));
}));

test('the document names every route of the route table and nothing else', () => withTestDaemon({}, async (d) => {
  const doc = (await request(d.url, '/openapi.json')).json as OpenAPIObject;
  const table = d.daemon.routes.map(([method, path]) => `${method} ${path.replace(/:(\w+)/g, '{$1}')}`).sort();
  assert.ok(table.length >= 11);
  assert.equal(documentedRoutes(doc), table);
}));

test('every code of the error catalogue is in the document, each under its own status', () => {
  const doc = openApiDocument(VERSION);
  const seen = new Map<string, Set<number>>();
  const note = (code: string, status: number) => seen.set(code, new Set([...(seen.get(code) ?? []), status]));
  // the codes an error schema allows: `properties.code` (enum or const), following $refs, not into `failures`
  const walk = (node: unknown, status: number | undefined): void => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, status));
    if (typeof node !== 'object' || node === null) return;
    const { $ref, properties } = node as { $ref?: string; properties?: { code?: { enum?: string[]; const?: string } } };
    if ($ref) walk(doc.components!.schemas![$ref.split('/').at(-1)!], status);
    const codes = properties?.code?.enum ?? (properties?.code?.const ? [properties.code.const] : []);
    if (status !== undefined) for (const code of codes) note(code, status);
    for (const [key, value] of Object.entries(node)) {
      if (key !== 'failures' && key !== 'properties') walk(value, /^\d{3}$/.test(key) ? Number(key) : status);
    }
  };
  walk(doc.paths, undefined);
  // NOT_FOUND and METHOD_NOT_ALLOWED of unknown paths and methods are components.responses
  for (const name of ['NotFound', 'MethodNotAllowed'] as const) {
    const response = doc.components!.responses![name] as unknown as { content: { 'application/json': { schema: unknown } } };
    const code = name === 'NotFound' ? 'NOT_FOUND' : 'METHOD_NOT_ALLOWED';
    walk({ [ERROR_CATALOGUE[code].status]: response.content['application/json'].schema }, undefined);
  }
  for (const [code, spec] of Object.entries(ERROR_CATALOGUE)) {
    assert.equal([...(seen.get(code) ?? [])], [spec.status], `${code} documented under ${[...(seen.get(code) ?? [])]}`);
  }
});

test('routes that need the token say so; /health and /ready are open', () => {
  const doc = openApiDocument(VERSION);
  for (const [path, item] of Object.entries(doc.paths!)) {
    for (const method of METHODS.filter((m) => m in item)) {
      const op = (item as Record<string, { security?: unknown[]; responses: Record<string, unknown> }>)[method]!;
      const open = path === '/health' || path === '/ready';
      assert.equal(op.security, open ? [] : undefined, `${method} ${path}`);
      assert.is('401' in op.responses, !open, `${method} ${path} 401`);
      assert.ok('403' in op.responses && '500' in op.responses, `${method} ${path} 403/500`);
    }
  }
});

test.run();
