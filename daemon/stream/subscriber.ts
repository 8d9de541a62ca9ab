import type { ServerResponse } from 'node:http';
import type { ErrorCode } from '../../lib/errors.js';
import { frame } from './frames.js';

// One /stream client: frames go out as fast as it reads. Live frames wait in a queue while its
// socket is full; a queue past the limit means the client cannot keep up: it is told (a
// `dropped` event) and disconnected, and never slows the daemon or the other clients.

/** How one client's stream is bounded. */
export interface SubscriberLimits {
  /** Bytes of live frames that may wait for a slow client before it is dropped. */
  queueBytes: number;
  /** How long a dropped client may take to read what was sent before its socket is destroyed (ms). */
  dropGraceMs: number;
}

/** A connected /stream client. */
export class Subscriber {
  readonly types: ReadonlySet<string> | undefined;
  /** Whether the client asked for alarm frames (`?alarms=true`). */
  readonly alarms: boolean;
  /** Called once if the client is dropped, with the reason (the hub logs it and forgets the client). */
  onDrop: ((reason: string) => void) | undefined;
  private readonly res: ServerResponse;
  private readonly limits: SubscriberLimits;
  private pending: string[] = [];
  private pendingBytes = 0;
  private held = true;
  /** Bytes of live events recorded since the replay last got a page through (a client not yet live). */
  private behind = 0;
  private waiting = false;
  private ended = false;

  constructor(res: ServerResponse, types: ReadonlySet<string> | undefined, limits: SubscriberLimits, alarms = false) {
    this.res = res;
    this.types = types;
    this.alarms = alarms;
    this.limits = limits;
    res.once('close', () => { this.ended = true; });
  }

  /** Whether the client is gone (disconnected, dropped or closed). */
  get closed(): boolean {
    return this.ended || this.res.destroyed;
  }

  /** Call `listener` once the client is gone. */
  onClose(listener: () => void): void {
    this.res.once('close', listener);
  }

  /** Whether this client asked for events of `type`. */
  wants(type: string): boolean {
    return this.types === undefined || this.types.has(type);
  }

  /** Queue a live frame; sent once released and the socket has room. Drops the client past the limit. */
  enqueue(text: string): void {
    if (this.closed) return;
    this.pending.push(text);
    this.pendingBytes += text.length;
    if (this.pendingBytes > this.limits.queueBytes) {
      this.drop(`${this.pendingBytes} bytes of events were waiting (limit ${this.limits.queueBytes})`);
    }
  }

  /**
   * A live event this client asks for was recorded while it is still sent its snapshot or
   * replay: past the queue limit without reading, it is dropped as a live client would be.
   */
  fallBehind(bytes: number): void {
    if (this.closed) return;
    this.behind += bytes;
    if (this.behind + this.res.writableLength > this.limits.queueBytes) {
      const unsent = this.res.writableLength;
      this.drop(`it read none of its replay while ${this.behind + unsent} bytes waited for it (${this.behind} of events recorded meanwhile, ` +
        `${unsent} of its replay not yet taken; limit ${this.limits.queueBytes})`);
    }
  }

  /** Write frames now (snapshot, replay), waiting until the socket has room again; false once the client is gone. */
  async send(text: string | Buffer): Promise<boolean> {
    if (this.closed) return false;
    if (!this.res.write(text)) await this.drained();
    this.behind = 0;
    return !this.closed;
  }

  /** Start sending the queued live frames (after the snapshot or replay). */
  release(): void {
    this.held = false;
    this.flush();
  }

  /** Write what is queued unless held or the socket is full (called once per turn by the hub). */
  flush(): void {
    if (this.held || this.waiting || this.closed || this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    if (!this.res.write(text)) {
      this.waiting = true;
      void this.drained().then(() => {
        this.waiting = false;
        this.flush();
      });
    }
  }

  /**
   * End the stream: what was written is flushed, then the socket is closed; after `graceMs`
   * (a client that does not read) it is cut. Shutdown ends streams with no grace.
   */
  end(graceMs = 0): void {
    if (this.closed) return;
    this.ended = true;
    this.pending = [];
    const socket = this.res.socket;
    const timer = setTimeout(() => socket?.destroy(), graceMs);
    timer.unref();
    this.res.end(() => {
      clearTimeout(timer);
      socket?.destroy();
    });
  }

  private drop(reason: string): void {
    this.pending = [];
    this.onDrop?.(reason);
    const detail = `This client read the stream too slowly (${reason}); reconnect with Last-Event-ID to resume from the files.`;
    const code: ErrorCode = 'STREAM_OVERFLOW';
    this.res.write(frame('dropped', JSON.stringify({ detail, code })));
    this.end(this.limits.dropGraceMs);
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }
}
