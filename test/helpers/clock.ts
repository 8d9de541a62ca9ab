import type { Clock } from '../../lib/time.js';

/**
 * A clock the test moves by hand: `advance` lets time pass (wall and monotonic), `set` and
 * `step` move the wall clock alone (an NTP step, an operator's `date -s`).
 */
export class ManualClock implements Clock {
  private ms: number;
  private mono = 0;

  constructor(start: number | string) {
    this.ms = typeof start === 'number' ? start : Date.parse(start);
  }

  now(): number {
    return this.ms;
  }

  monotonic(): number {
    return this.mono;
  }

  /** Set the wall clock (the monotonic one does not move). */
  set(at: number | string): void {
    this.ms = typeof at === 'number' ? at : Date.parse(at);
  }

  /** Step the wall clock by `ms` (negative: back); the monotonic one does not move. */
  step(ms: number): void {
    this.ms += ms;
  }

  /** Let `ms` pass: both clocks move. */
  advance(ms: number): void {
    this.ms += ms;
    this.mono += ms;
  }
}
