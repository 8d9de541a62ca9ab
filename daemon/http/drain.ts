import type http from 'node:http';
import type { Logger } from '../../lib/log.js';

// A bounded stop of the HTTP side. Node's server.close() stops accepting but keeps serving
// busy keep-alive connections for as long as their clients keep sending (sensors posting
// at 10-100 Hz never let it finish); here each connection ends with its next answer.

/**
 * Tracks the requests in flight; once the stop begins every answer not yet sent carries
 * `Connection: close`, idle connections are closed, and whatever is still open at the
 * deadline is cut.
 */
export class Drain {
  private readonly server: http.Server;
  private readonly logger: Logger;
  private readonly inFlight = new Set<http.ServerResponse>();
  private stopping = false;
  private cut: (() => void) | undefined;

  constructor(server: http.Server, logger: Logger) {
    this.server = server;
    this.logger = logger;
  }

  /**
   * Track a request until it is answered. One that arrives after the stop began (on a
   * connection opened before) is still served, with `Connection: close`: no connection
   * carries more than one request past the stop.
   */
  admit(res: http.ServerResponse): void {
    if (this.stopping) res.setHeader('Connection', 'close');
    this.inFlight.add(res);
    res.once('close', () => {
      this.inFlight.delete(res);
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
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    return new Promise<void>((resolve) => {
      const cut = () => {
        this.cut = undefined;
        clearTimeout(timer);
        if (this.inFlight.size > 0) this.logger.warn(`closing ${this.inFlight.size} connection(s) with a request still in flight`);
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
