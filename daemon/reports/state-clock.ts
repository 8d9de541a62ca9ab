// Time spent in each state of something that holds one state at a time (a safety verdict, a
// type's staleness, a POCS state), folded from its changes in record order. A stretch with no
// event recorded at all (a gap) is time of no known state, whatever held before it.

/** The key of time in no known state. */
export const UNKNOWN = '';

/** Seconds per state over a span: `set` at each change, `gap` over each silence, `totals` at the end. */
export class StateClock {
  private state: string;
  private since: number;
  private readonly totals = new Map<string, number>();
  private readonly entries = new Map<string, number>();

  /** Starts at `fromMs` in `initial` (UNKNOWN when nothing is known). */
  constructor(fromMs: number, initial: string = UNKNOWN) {
    this.since = fromMs;
    this.state = initial;
  }

  /** The state now. */
  get current(): string {
    return this.state;
  }

  /** The state changes to `state` at `ms` (a time before the last change counts as that change's time). */
  set(ms: number, state: string): void {
    this.advance(ms);
    if (state !== this.state) this.entries.set(state, (this.entries.get(state) ?? 0) + 1);
    this.state = state;
  }

  /** Nothing was recorded from `fromMs` to `toMs`: that stretch is in no known state; the state holds on after it. */
  gap(fromMs: number, toMs: number): void {
    this.advance(fromMs);
    const held = this.state;
    this.state = UNKNOWN;
    this.advance(toMs);
    this.state = held;
  }

  /** Milliseconds per state up to `endMs`, and how often each was entered. */
  totalsAt(endMs: number): { ms: Map<string, number>; entered: Map<string, number> } {
    this.advance(endMs);
    return { ms: new Map(this.totals), entered: new Map(this.entries) };
  }

  private advance(ms: number): void {
    if (ms <= this.since) return;
    this.totals.set(this.state, (this.totals.get(this.state) ?? 0) + (ms - this.since));
    this.since = ms;
  }
}
