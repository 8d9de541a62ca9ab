import type http from 'node:http';
import { bodyCoding } from '../../lib/content-coding.js';
import type { Logger } from '../../lib/log.js';
import { errorAnswer, okAnswer, type Transaction } from './answer.js';
import type { AlpacaDevice, MemberCall } from './device.js';
import { AlpacaDeviceError, AlpacaRequestError } from './errors.js';
import { managementValues, setupPage, type ServerDescription } from './management.js';
import { AlpacaParams } from './params.js';

// The Alpaca server's one route table and request path (the Alpaca API Reference, sections
// 2.1-2.8): a separate protocol surface on its own port, so it has its own table rather than
// rows in daemon/http/routes.ts. Paths are case sensitive and lower case; GET and PUT only;
// anything not understood is HTTP 400 with a sentence; a member's own failure is HTTP 200
// with an Alpaca error number.

const MAX_BODY_BYTES = 65536;
const MAX_UINT32 = 4294967295;
const API_PATH = /^\/api\/v1\/([^/]+)\/([^/]+)\/([^/]+)$/;
const SETUP_PATH = /^\/setup\/v1\/([^/]+)\/([^/]+)\/setup$/;

/** What the request path needs. */
export interface AlpacaHandlerDeps {
  readonly devices: readonly AlpacaDevice[];
  readonly description: ServerDescription;
  readonly logger: Logger;
  /** The next ServerTransactionID (1, 2, ... 4294967295, then 1 again). */
  readonly nextTransaction: () => number;
}

/** The request listener of the Alpaca server. */
export function alpacaListener(deps: AlpacaHandlerDeps): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const management = managementValues(deps.description, deps.devices);
  return (req, res) => {
    const serverTransactionId = deps.nextTransaction();
    handle(req, res, serverTransactionId, deps, management).catch((error: unknown) => {
      deps.logger.error(`alpaca: ${req.method} ${req.url} failed: ${(error as Error).stack ?? String(error)}`);
      sendText(res, 500, 'internal error in the Alpaca server (see the daemon log)');
    });
  };
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, serverTransactionId: number, deps: AlpacaHandlerDeps,
  management: Readonly<Record<string, () => unknown>>): Promise<void> {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  try {
    if (req.method !== 'GET' && req.method !== 'PUT') throw new AlpacaRequestError(`method ${req.method ?? ''} is not used by Alpaca (GET reads, PUT changes)`);
    const params = req.method === 'GET' ? new AlpacaParams(queryAt < 0 ? '' : url.slice(queryAt + 1), true) : new AlpacaParams(await formBody(req), false);
    if (path === '/setup' || SETUP_PATH.test(path)) return setup(req.method, path, res, deps);
    const call = route(path, req.method, deps.devices, management);
    const tx: Transaction = { clientTransactionId: params.uint32('ClientTransactionID'), serverTransactionId };
    const clientId = params.uint32('ClientID');
    deps.logger.debug(`alpaca: ${req.method} ${path} ClientID ${clientId} ClientTransactionID ${tx.clientTransactionId} ServerTransactionID ${serverTransactionId}`);
    let body: string;
    try {
      body = okAnswer(tx, call(params));
    } catch (error) {
      if (!(error instanceof AlpacaDeviceError)) throw error;
      body = errorAnswer(tx, error.number, error.message);
    }
    sendJson(res, body);
  } catch (error) {
    if (!(error instanceof AlpacaRequestError)) throw error;
    deps.logger.debug(`alpaca: ${req.method} ${path} refused (HTTP 400): ${error.message}`);
    sendText(res, 400, error.message);
  }
}

/** The HTML setup pages; a device setup URL of a device not served is 403 (the Management API's rule for /setup). */
function setup(method: string, path: string, res: http.ServerResponse, deps: AlpacaHandlerDeps): void {
  if (method !== 'GET') throw new AlpacaRequestError(`${path} takes GET only`);
  if (path !== '/setup') {
    try {
      findDevice(deps.devices, ...(SETUP_PATH.exec(path)!.slice(1, 3) as [string, string]));
    } catch (error) {
      if (!(error instanceof AlpacaRequestError)) throw error;
      return sendText(res, 403, error.message);
    }
  }
  sendHtml(res, setupPage(deps.description, deps.devices));
}

/** The member a path and verb name; HTTP 400 when the path, device or verb is not one served here. */
function route(path: string, method: string, devices: readonly AlpacaDevice[], management: Readonly<Record<string, () => unknown>>): MemberCall {
  const managed = Object.hasOwn(management, path) ? management[path] : undefined;
  if (managed) {
    if (method !== 'GET') throw new AlpacaRequestError(`${path} takes GET only`);
    return () => managed();
  }
  const match = API_PATH.exec(path);
  if (!match) throw new AlpacaRequestError(`${path} is not an Alpaca path (/api/v1/{device_type}/{device_number}/{member}, /management/..., /setup)`);
  const [, type, number, name] = match as unknown as [string, string, string, string];
  const device = findDevice(devices, type, number);
  const member = Object.hasOwn(device.members, name) ? device.members[name] : undefined;
  if (!member) throw new AlpacaRequestError(`${name} is not a member of ${device.spec.deviceType} (member names are lower case)`);
  const call = method === 'GET' ? member.get : member.put;
  if (!call) throw new AlpacaRequestError(`${device.spec.deviceType} ${name} takes ${member.get ? 'GET' : 'PUT'}, not ${method}`);
  return call;
}

function findDevice(devices: readonly AlpacaDevice[], type: string, number: string): AlpacaDevice {
  const ofType = devices.filter((d) => d.pathType === type);
  if (ofType.length === 0) {
    throw new AlpacaRequestError(`there is no device of type ${JSON.stringify(type)} here (served: ${devices.map((d) => d.pathType).join(', ')}; lower case)`);
  }
  if (!/^(0|[1-9]\d{0,9})$/.test(number) || Number(number) > MAX_UINT32) {
    throw new AlpacaRequestError(`the device number must be an integer 0-${MAX_UINT32}; got ${JSON.stringify(number)}`);
  }
  const device = ofType.find((d) => d.spec.number === Number(number));
  if (!device) throw new AlpacaRequestError(`${type} device ${number} does not exist (served: ${ofType.map((d) => d.spec.number).join(', ')})`);
  return device;
}

/** A PUT's form body as text (application/x-www-form-urlencoded, at most 64 KiB). */
async function formBody(req: http.IncomingMessage): Promise<string> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const coding = bodyCoding(req.headers['content-encoding']);
  if (coding !== undefined) throw new AlpacaRequestError(`a PUT body must be sent uncompressed; got Content-Encoding ${JSON.stringify(coding)}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new AlpacaRequestError(`the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text !== '' && type !== 'application/x-www-form-urlencoded') {
    throw new AlpacaRequestError(`a PUT body must be application/x-www-form-urlencoded; got ${JSON.stringify(type || '(no Content-Type)')}`);
  }
  return text;
}

function sendJson(res: http.ServerResponse, body: string): void {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sendHtml(res: http.ServerResponse, html: string): void {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(html) });
  res.end(html);
}
