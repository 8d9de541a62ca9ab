// The alarms' one timer, due no later than any alarm's next wake (wake.ts): a look at a few
// alarms compares their wakes with it alone; only without a timer is every alarm's read.

/** Something with a next wake (monotonic ms, Infinity: nothing due). */
export interface Waking {
  readonly wake: number;
}

/** The one timer of the alarms. */
export class WakeTimer {
  private timer: NodeJS.Timeout | undefined;
  /** When (monotonic ms) `timer` is due. */
  private at = Infinity;

  /** `mono`: the monotonic clock (ms); `fire`: the full look, when the timer is due. */
  constructor(private readonly mono: () => number, private readonly fire: () => void) {}

  /**
   * Set the timer to the earliest wake: `looked`, the earliest of the alarms just looked at;
   * `all`, every alarm (read only when no timer is set: one that is is due no later than any).
   */
  set(looked: number, all: Iterable<Waking>): void {
    // a timer due no later is kept (a look before anything is due finds nothing and sets it again):
    // readings push their inputs' limits on, and setting a timer on every turn cost more than the rules
    if (this.timer !== undefined && this.at <= looked) return;
    let wake = looked;
    if (this.timer === undefined) for (const a of all) wake = Math.min(wake, a.wake);
    this.stop();
    if (wake === Infinity) return;
    // a timer of 2^31 ms or more fires at once: the interval looks again long before
    const delay = Math.min(Math.max(0, Math.ceil(wake - this.mono())), 2 ** 31 - 1);
    this.at = wake;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fire();
    }, delay);
    this.timer.unref();
  }

  /** Clear it (at shutdown, or before it is set again). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
