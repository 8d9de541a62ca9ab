import type { Logger } from '../../lib/log.js';
import { formatCursor } from '../ndjson/cursor.js';
import type { RecordedEvent, TelemetryStore } from '../storage/store.js';
import { frame } from './frames.js';
import type { Subscriber } from './subscriber.js';

// The live side of /stream: one listener on the store fans every recorded event out to the
// clients that asked for its type. Each event is formatted once; each client gets one write
// per turn with everything of that turn (a slow one queues, and is dropped past its limit).

/** Every live /stream client, fed from the store's onRecorded. */
export class StreamHub {
  private readonly subscribers = new Set<Subscriber>();
  /** Clients still being sent their snapshot or replay: ended at shutdown too, and counted behind while they wait. */
  private readonly feeding = new Set<Subscriber>();
  private readonly logger: Logger;
  private readonly stopListening: () => void;
  private flushQueued = false;
  private closing = false;

  constructor(store: TelemetryStore, logger: Logger) {
    this.logger = logger;
    this.stopListening = store.onRecorded((event) => this.deliver(event));
  }

  /** How many clients are live. */
  get size(): number {
    return this.subscribers.size;
  }

  /** Whether the hub is closed (shutdown): no new client is taken. */
  get closed(): boolean {
    return this.closing;
  }

  /**
   * Take a client before its snapshot or replay: false (and it is ended) once the hub is
   * closed. Until it is added, the live events it asks for count against its queue limit
   * while it does not read, so a stalled replay is dropped like a stalled live client.
   */
  admit(sub: Subscriber, describe: string): boolean {
    if (this.closing) {
      sub.end();
      return false;
    }
    this.feeding.add(sub);
    sub.onClose(() => this.feeding.delete(sub));
    sub.onDrop = (reason) => {
      this.feeding.delete(sub);
      this.logger.warn(`stream client ${describe} dropped: ${reason}`);
    };
    return true;
  }

  /**
   * Give `sub` every event recorded from now on (call it in the same turn as the head its
   * snapshot or replay ends at). Its frames are held until it is released.
   */
  add(sub: Subscriber, describe: string): void {
    this.feeding.delete(sub);
    if (sub.closed) return;
    this.subscribers.add(sub);
    sub.onClose(() => this.subscribers.delete(sub));
    sub.onDrop = (reason) => {
      this.subscribers.delete(sub);
      this.logger.warn(`stream client ${describe} dropped: ${reason}`);
    };
  }

  /** End every stream (shutdown) and stop listening. */
  close(): void {
    this.closing = true;
    this.stopListening();
    for (const sub of [...this.subscribers, ...this.feeding]) sub.end();
    this.subscribers.clear();
    this.feeding.clear();
  }

  /** Send an alarm (its JSON) to every live client that asked for alarms (`?alarms=true`). */
  deliverAlarm(json: string): void {
    let text: string | undefined;
    for (const sub of this.subscribers) {
      if (!sub.alarms) continue;
      text ??= frame('alarm', json);
      sub.enqueue(text);
    }
    if (text !== undefined) this.flushSoon();
  }

  private deliver(event: RecordedEvent): void {
    if (this.subscribers.size === 0 && this.feeding.size === 0) return;
    const { type, seq, json } = event.reading;
    for (const sub of this.feeding) if (sub.wants(type)) sub.fallBehind(json.length);
    let text: string | undefined;
    for (const sub of this.subscribers) {
      if (!sub.wants(type)) continue;
      text ??= frame(event.makeCurrent ? 'event' : 'held', json, formatCursor(event.stream, seq));
      sub.enqueue(text);
    }
    if (text !== undefined) this.flushSoon();
  }

  private flushSoon(): void {
    if (this.flushQueued) return;
    // the store calls listeners once per event of a write: send them all with one write per client
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      for (const sub of this.subscribers) sub.flush();
    });
  }
}
