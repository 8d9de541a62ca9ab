import type { Envelope } from '../../lib/wire.js';

// Which line of a target is the newest of its type, whatever the clock did. Meridian never
// writes a seq already in a target, so in a target it wrote, the highest seq was written last,
// even when a clock stepped back across noon appended it to an earlier day's file. The original
// service restarted its seq at every start: in a target where a seq repeats or falls within a
// file (Meridian only appends higher ones), the order of the files is the only order there is,
// and the line read last wins.

/** Seqs above this are not tracked (a damaged line): the target is read in file order. */
const MAX_TRACKED_SEQ = 2 ** 27;

/** One line of a file with its parsed envelope. */
export interface EnvelopeLine {
  env: Envelope;
  line: string;
}

/** The newest line of each type among the lines offered, by seq unless seqs repeat. */
export class NewestLines {
  private readonly bySeq = new Map<string, EnvelopeLine>();
  private readonly byOrder = new Map<string, EnvelopeLine>();
  private seen = new Uint8Array(4096);
  private repeats = false;
  private previous = 0;

  /** The lines that follow are another file's. */
  nextFile(): void {
    this.previous = 0;
  }

  /** Count a line's seq (every line of the target, current or not), in the order of the file. */
  note(seq: number): void {
    if (this.repeats) return;
    const falls = seq <= this.previous;
    this.previous = seq;
    if (falls || !Number.isSafeInteger(seq) || seq < 1 || seq >= MAX_TRACKED_SEQ) {
      this.repeats = true;
      return;
    }
    const byte = seq >> 3;
    if (byte >= this.seen.length) {
      const grown = new Uint8Array(Math.max(this.seen.length * 2, byte + 1));
      grown.set(this.seen);
      this.seen = grown;
    }
    const bit = 1 << (seq & 7);
    const held = this.seen[byte]!;
    if (held & bit) this.repeats = true;
    this.seen[byte] = held | bit;
  }

  /** A line that may become its type's reading, in the order the files were read. */
  offer(env: Envelope, line: string): void {
    this.byOrder.set(env.type, { env, line });
    const held = this.bySeq.get(env.type);
    if (!held || env.seq > held.env.seq) this.bySeq.set(env.type, { env, line });
  }

  /** Whether a seq was seen twice (a directory of the original service). */
  get seqsRepeat(): boolean {
    return this.repeats;
  }

  /** The newest line of each type. */
  lines(): IterableIterator<EnvelopeLine> {
    return (this.repeats ? this.byOrder : this.bySeq).values();
  }
}
