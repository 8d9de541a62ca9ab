import http from 'node:http';
import type { Logger } from '../../lib/log.js';

// A bounded stop of the HTTP side. Node's server.close() stops accepting but keeps serving
// busy keep-alive connections for as long as their clients keep sending (sensors posting
// at 10-100 Hz never let it finish); here each connection ends with its next answer.
//
// Requests in flight are counted, not collected: a Set of responses, added to and deleted
// from by every request, left discarded hash tables that V8 links to their successors, so
// every response stayed reachable through two young-generation collections and was promoted
// (~1 MB per collection under load, 30 MB more heap between full collections).

/**
 * Owns the HTTP server and its stop: once the stop begins every answer not yet sent carries
 * `Connection: close` (its response class adds it when the head is written), idle
 * connections are closed, and whatever is still open at the deadline is cut.
 */
export class Drain {
  readonly server: http.Server;
  private readonly logger: Logger;
  private inFlight = 0;
  private stopping = false;
  private cut: (() => void) | undefined;

  constructor(logger: Logger, options: http.ServerOptions) {
    this.logger = logger;
    this.server = http.createServer({ ...options, ServerResponse: closingResponse(() => this.stopping) });
  }

  /**
   * Count a request until it is answered. One that arrives after the stop began (on a
   * connection opened before) is still served, with `Connection: close`: no connection
   * carries more than one request past the stop.
   */
  admit(res: http.ServerResponse): void {
    this.inFlight++;
    res.once('close', () => {
      this.inFlight--;
      // its connection may be idle now: close it rather than wait for the client's next request
      if (this.stopping) setImmediate(() => this.server.closeIdleConnections());
    });
  }

  /**
   * Stop: no new connections, idle ones closed, `Connection: close` on every answer still to
   * be sent; resolves once every connection is closed, cutting those still open after
   * `timeoutMs`. Called again while stopping, it cuts them at once with a timeout of 0.
   */
  stop(timeoutMs: number): Promise<void> {
    if (this.stopping) {
      if (timeoutMs === 0) this.cut?.();
      return Promise.resolve();
    }
    this.stopping = true;
    return new Promise<void>((resolve) => {
      const cut = () => {
        this.cut = undefined;
        clearTimeout(timer);
        if (this.inFlight > 0) this.logger.warn(`closing ${this.inFlight} connection(s) with a request still in flight`);
        this.server.closeAllConnections();
      };
      const timer = setTimeout(cut, timeoutMs);
      this.cut = cut;
      this.server.close(() => {
        clearTimeout(timer);
        this.cut = undefined;
        resolve();
      });
      this.server.closeIdleConnections();
    });
  }
}

type Headers = http.OutgoingHttpHeaders | http.OutgoingHttpHeader[];

/** The server's response class: while `stopping()` holds, a head written says `Connection: close`. */
function closingResponse(stopping: () => boolean): typeof http.ServerResponse {
  class ClosingResponse extends http.ServerResponse {
    // every head goes through writeHead (Node's implicit head of write() and end() calls it)
    override writeHead(statusCode: number, statusMessage?: string, headers?: Headers): this;
    override writeHead(statusCode: number, headers?: Headers): this;
    override writeHead(statusCode: number, ...rest: [string?, Headers?] | [Headers?]): this {
      if (stopping() && !this.headersSent) this.setHeader('Connection', 'close');
      return super.writeHead(statusCode, ...(rest as [string?, Headers?]));
    }
  }
  return ClosingResponse as typeof http.ServerResponse;
}
