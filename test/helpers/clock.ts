import type { Clock } from '../../lib/time.js';

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  private ms: number;

  constructor(start: number | string) {
    this.ms = typeof start === 'number' ? start : Date.parse(start);
  }

  now(): number {
    return this.ms;
  }

  set(at: number | string): void {
    this.ms = typeof at === 'number' ? at : Date.parse(at);
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
