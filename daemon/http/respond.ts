import type { ServerResponse } from 'node:http';
import type { Request } from 'polka';
import { MeridianError, type ErrorCode } from '../../lib/errors.js';
import type { Logger } from '../../lib/log.js';
import { chunksLength } from '../storage/chunked-text.js';

// The two ways a request is answered: a JSON body, or the one error path.

/** Answer `status` with a JSON body that is already serialized. */
export function sendJson(res: ServerResponse, status: number, body: string | Buffer): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': typeof body === 'string' ? Buffer.byteLength(body) : body.length });
  res.end(body);
}

/**
 * Answer 200 with a JSON body given as chunks (a large current view): one write when there
 * is one chunk, else the chunks in turn, each written once the socket took the one before
 * (backpressure: the answer is never copied whole into the socket's buffer). Resolves once
 * the last chunk is handed over, or the client has gone.
 */
export function sendJsonChunks(res: ServerResponse, chunks: readonly Buffer[]): void | Promise<void> {
  if (chunks.length === 1) return sendJson(res, 200, chunks[0]!);
  const length = chunksLength(chunks);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': length });
  if (length <= CORKED_BYTES) {
    // a view with its freshness (two buffers): one writev, as one buffer was
    res.cork();
    for (const chunk of chunks.slice(0, -1)) res.write(chunk);
    res.end(chunks.at(-1));
    return;
  }
  return writeChunks(res, chunks);
}

/** Up to this size a chunked answer is handed over at once (it is in memory already); above it, chunk by chunk as the client reads. */
const CORKED_BYTES = 4 * 1024 * 1024;

async function writeChunks(res: ServerResponse, chunks: readonly Buffer[]): Promise<void> {
  for (const [i, chunk] of chunks.entries()) {
    if (res.destroyed) return;
    if (i === chunks.length - 1) {
      res.end(chunk);
    } else if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
}

/**
 * Answer an error as `{"detail", "code"}`: a MeridianError with its status, anything else
 * logged with its stack and answered 500 without internals. Returns the code answered.
 */
export function sendError(res: ServerResponse, err: unknown, logger: Logger, req: Request): ErrorCode {
  let error: MeridianError;
  if (err instanceof MeridianError) {
    error = err;
  } else {
    logger.error(`unexpected error on ${req.method} ${req.url}`, err);
    error = new MeridianError('INTERNAL', 'An unexpected error occurred; it has been logged.');
  }
  if (res.headersSent) {
    res.destroy();
    return error.code;
  }
  // RFC 9110 11.6.1: a 401 names the scheme the credentials must use
  if (error.code === 'UNAUTHORIZED') res.setHeader('WWW-Authenticate', 'Bearer');
  if (error.code === 'BODY_TOO_LARGE') {
    // the rest of the body is not read: close the connection once this answer is out
    const socket = req.socket;
    res.setHeader('Connection', 'close');
    res.on('finish', () => socket?.destroy());
  }
  sendJson(res, error.status, terminalSafeJson(JSON.stringify({ detail: error.message, code: error.code, ...error.fields })));
  return error.code;
}

// JSON.stringify escapes C0 controls but writes DEL, the C1 controls (0x9b is a one-byte CSI)
// and the bidi overrides as they are; an error detail quotes what the caller sent.
const UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** JSON text with DEL, C1 controls and bidi overrides as \u escapes: the same value to a JSON reader, nothing a terminal obeys when the body is shown as it is (lib/terminal-text.ts's set). */
export function terminalSafeJson(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
