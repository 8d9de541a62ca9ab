import type { OpenAPIObject, PathsObject } from 'openapi3-ts/oas31';
import { alarmPaths } from './alarms.js';
import { currentPaths } from './current.js';
import { eventPaths } from './events.js';
import { historyPaths } from './history.js';
import { rollupPaths } from './rollups.js';
import { lifecyclePaths } from './lifecycle.js';
import { errorSchema, jsonAnswer, operation } from './responses.js';
import { reportPaths } from './reports.js';
import { runPaths } from './runs.js';
import { safetyPaths } from './safety.js';
import { SCHEMAS } from './schemas.js';

// The OpenAPI 3.1 document of the daemon, assembled from one file per resource. It must
// name every route of daemon/http/routes.ts and nothing else (test/openapi-document.test.ts)
// and every real answer must match it (test/openapi-answers.test.ts).

const DESCRIPTION = `Records observatory telemetry and keeps the latest reading of every type.

Every answer is JSON unless said otherwise. Every error answer is \`{"detail", "code"}\`
(\`#/components/schemas/Error\`); the codes are stable (docs/errors.md). On any path:
404 \`NOT_FOUND\` for an unknown path, 405 \`METHOD_NOT_ALLOWED\` (with an \`Allow\` header)
for a known path with another method. With a token configured (\`--token\`), every route
except /health and /ready needs \`Authorization: Bearer <token>\`. docs/http-api.md is the
readable reference.`;

/** Path items that describe the daemon's own interface. */
const introspectionPaths: PathsObject = {
  '/openapi.json': {
    get: operation({
      operationId: 'openapi', tags: ['daemon'], summary: 'This document.',
      answers: jsonAnswer('The OpenAPI 3.1 document of this daemon.', { type: 'object', required: ['openapi', 'paths'] }),
    }),
  },
  '/metrics': {
    get: operation({
      operationId: 'metrics', tags: ['daemon'],
      summary: 'Prometheus metrics: events recorded, rejections, write and sync failures, request durations, readings, process.',
      description: 'The Prometheus text exposition format 0.0.4; docs/operations.md lists every metric.',
      answers: { 200: { description: 'The metrics.', content: { 'text/plain': { schema: { type: 'string' } } } } },
    }),
  },
};

/** The document for a daemon of package version `version`. */
export function openApiDocument(version: string): OpenAPIObject {
  return {
    openapi: '3.1.0',
    info: { title: 'Meridian telemetry daemon', version, description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: 'http://localhost:6562', description: 'The default address (--host, --port).' }],
    security: [{ bearer: [] }, {}],
    tags: [
      { name: 'daemon', description: 'Liveness, readiness, status, shutdown, this document.' },
      { name: 'runs', description: 'Runs: an optional context (one night) with its own file and seq counter.' },
      { name: 'events', description: 'Recording events.' },
      { name: 'current', description: 'The latest reading of every type.' },
      { name: 'history', description: 'What was recorded: history pages and the live stream.' },
      { name: 'safety', description: 'The safety verdict (docs/safety.md).' },
      { name: 'alarms', description: 'Alarm rules of the config file: their states, acknowledging and shelving (docs/alarms.md).' },
    ],
    paths: { ...lifecyclePaths, ...runPaths, ...eventPaths, ...currentPaths, ...historyPaths, ...rollupPaths, ...reportPaths, ...safetyPaths, ...alarmPaths, ...introspectionPaths },
    components: {
      schemas: SCHEMAS,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'The token given with --token; needed only when one is configured.' },
      },
      responses: {
        NotFound: {
          description: '`NOT_FOUND`: no such path (any path not in this document).',
          content: { 'application/json': { schema: errorSchema(['NOT_FOUND']) } },
        },
        MethodNotAllowed: {
          description: '`METHOD_NOT_ALLOWED`: the path exists but not with this method; `Allow` names the methods it takes.',
          headers: { Allow: { schema: { type: 'string' }, description: 'The methods the path takes, comma-separated.' } },
          content: { 'application/json': { schema: errorSchema(['METHOD_NOT_ALLOWED']) } },
        },
      },
    },
  };
}
