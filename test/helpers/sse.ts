import http from 'node:http';
import { createParser } from 'eventsource-parser';

// A raw /stream reader for tests: node:http plus eventsource-parser, so the test sees exactly
// the frames the daemon sends (names, ids, data). Every wait has a deadline.

/** One frame as received. */
export interface Frame {
  event: string | undefined;
  id: string | undefined;
  data: string;
}

/** An open /stream request. */
export class SseReader {
  readonly frames: Frame[] = [];
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  /** The body text when the answer was not a stream (an error answer). */
  body = '';
  ended = false;
  private readonly req: http.ClientRequest;
  private res: http.IncomingMessage | undefined;
  private waiters: Array<() => void> = [];

  constructor(url: string, path: string, headers: Record<string, string> = {}) {
    const base = new URL(url);
    const parser = createParser({ onEvent: (e) => { this.frames.push({ event: e.event, id: e.id, data: e.data }); this.wake(); } });
    this.req = http.get({ host: base.hostname, port: base.port, path, headers, agent: false }, (res) => {
      this.res = res;
      this.status = res.statusCode ?? 0;
      this.headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (this.status === 200) parser.feed(chunk); else this.body += chunk;
        this.wake();
      });
      res.on('end', () => { this.ended = true; this.wake(); });
      res.on('error', () => { this.ended = true; this.wake(); });
      this.wake();
    });
    this.req.on('error', () => { this.ended = true; this.wake(); });
  }

  /** The frames named `event` (all when no name is given). */
  named(...names: string[]): Frame[] {
    return this.frames.filter((f) => names.includes(f.event ?? 'message'));
  }

  /** The parsed data of frames with these names. */
  data(...names: string[]): any[] {
    return this.named(...names).map((f) => JSON.parse(f.data));
  }

  /** Resolve once `ok()` holds; fail at the deadline showing what arrived. */
  async until(what: string, ok: () => boolean, deadlineMs = 15_000): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (!ok()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; frames:\n${JSON.stringify(this.frames, null, 1)}\nbody: ${this.body}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
  }

  /** Wait for the `live` marker. */
  live(): Promise<void> {
    return this.until('the live marker', () => this.named('live').length > 0);
  }

  /** Wait for the answer's head (status and headers). */
  answered(): Promise<void> {
    return this.until('an answer', () => this.status !== 0 || this.ended);
  }

  /** The id of the last frame that had one. */
  lastId(): string | undefined {
    return this.frames.filter((f) => f.id !== undefined).at(-1)?.id;
  }

  /** Stop reading (the daemon's writes back up into the socket); `resume()` reads on. */
  pause(): void {
    this.res?.pause();
  }

  resume(): void {
    this.res?.resume();
  }

  /** Disconnect. */
  close(): void {
    this.req.destroy();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
