// Where the site events recorded since the daemon started went: one segment per stretch of
// seqs written to one day file, a new one each time the store writes another day file (at
// noon, or when the clock stepped back or forward). A sink reads the site stream segment by
// segment, so it delivers in seq order even when a day file holds older lines before newer
// ones (the clock stepped back) and whenever it looks: each event once. Kept in memory (a
// segment a day, a few more per clock step); before the daemon started, the days are read in
// name order (docs/forwarding.md).

/** Seqs from `from` on (up to the next segment's `from`) were written to `file` (a plain path). */
export interface SiteSegment {
  readonly file: string;
  readonly from: number;
}

/** A segment found for a seq, with where it ends (undefined: the store writes it now). */
export interface LocatedSegment extends SiteSegment {
  readonly until: number | undefined;
}

/** The site segments of this daemon's life, fed by the store's onRecorded. */
export class SiteSegments {
  private readonly list: SiteSegment[] = [];
  /** The last site seq the store had used when the daemon started: every later one is in a segment. */
  readonly before: number;

  /** Start from the store's site head: its file and the last seq it used. */
  constructor(head: { file: string; seq: number }) {
    this.before = head.seq;
    if (head.file !== '') this.list.push({ file: head.file, from: head.seq + 1 });
  }

  /** A site event of `seq` was written to `file`. */
  recorded(file: string, seq: number): void {
    if (this.list.at(-1)?.file !== file) this.list.push({ file, from: seq });
  }

  /** The first seq recorded since start (undefined: none yet). */
  get start(): number | undefined {
    return this.list[0]?.from;
  }

  /** The segment that holds the seq after `seq`, or undefined when that seq was recorded before the daemon started (or nothing since). */
  after(seq: number): LocatedSegment | undefined {
    for (let i = this.list.length - 1; i >= 0; i--) {
      const s = this.list[i]!;
      if (s.from <= seq + 1) return { ...s, until: this.list[i + 1]?.from };
    }
    return undefined;
  }
}
