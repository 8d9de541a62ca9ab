import type { ForwardRecord } from './record.js';

// Ephemeral events on their way to one sink: live and best-effort. They have no line in the
// files, so nothing can be read back: a small queue holds them until the sink's loop sends
// them (once, never retried), and whatever cannot go is dropped and counted.

/** A sink's bounded queue of ephemeral records, with what became of them. */
export class EphemeralQueue {
  private readonly limit: number;
  // the queue is records[head..]: dropping the oldest of a full queue (on the ingest path, up
  // to 100,000 records) moves an index, not the array; the array is compacted now and then
  private records: ForwardRecord[] = [];
  private head = 0;
  /** Records the peer acknowledged. */
  sent = 0;
  /** Records dropped: the queue was full, the sink was down, or their one attempt failed. */
  dropped = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** How many wait. */
  get size(): number {
    return this.records.length - this.head;
  }

  /** Queue a record; a full queue drops its oldest (the newest readings are worth more). */
  offer(record: ForwardRecord): void {
    if (this.size >= this.limit) {
      this.records[this.head++] = undefined as never;
      this.dropped++;
      if (this.head >= this.limit) this.compact();
    }
    this.records.push(record);
  }

  /** The sink is down: count a record that arrives now as dropped without queueing it. */
  refuse(): void {
    this.dropped++;
  }

  /** Drop everything queued (the sink went down). */
  dropAll(): void {
    this.dropped += this.size;
    this.records = [];
    this.head = 0;
  }

  /** Send up to `max` records, oldest first, once: acknowledged, they count as sent; failed or refused, as dropped (the error is returned). */
  async sendOnce(max: number, send: (records: ForwardRecord[]) => Promise<void>): Promise<{ count: number; error?: unknown }> {
    this.compact();
    const records = this.records.splice(0, max);
    try {
      await send(records);
      this.sent += records.length;
      return { count: records.length };
    } catch (error) {
      this.dropped += records.length;
      return { count: records.length, error };
    }
  }

  private compact(): void {
    if (this.head === 0) return;
    this.records = this.records.slice(this.head);
    this.head = 0;
  }
}
