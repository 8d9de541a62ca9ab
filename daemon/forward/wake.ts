// A wait that new events, a timeout or a stop can end, without polling in between.

/** Lets a sink's loop sleep until it is woken (new events), a delay passes, or it is stopped. */
export class Wake {
  private woken = false;
  private stopped = false;
  private current: { resolve: () => void; timer: NodeJS.Timeout; onlyTime: boolean } | undefined;

  /** End the current wait, or the next one at once if none is running (events arrived meanwhile). */
  wake(): void {
    this.woken = true;
    if (this.current && !this.current.onlyTime) this.finish();
  }

  /** End every wait now and for good (shutdown). */
  stop(): void {
    this.stopped = true;
    if (this.current) this.finish();
  }

  /** Wait up to `ms` or until woken; `onlyTime` waits out the delay whatever arrives (a retry delay, a linger). */
  wait(ms: number, onlyTime = false): Promise<void> {
    if (this.stopped || (!onlyTime && this.woken)) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.current = { resolve, timer: setTimeout(() => this.finish(), ms), onlyTime };
    });
  }

  private finish(): void {
    const current = this.current!;
    this.current = undefined;
    clearTimeout(current.timer);
    if (!current.onlyTime) this.woken = false;
    current.resolve();
  }
}
