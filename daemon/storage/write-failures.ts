import type { Logger } from '../../lib/log.js';
import { formatTs, type Clock } from '../../lib/time.js';

// A failed write of the append path said once per file and errno, not at every turn that fails
// the same way (a read-only `.meridian/` refuses the alarm journal's batch every second; a full
// disk refuses every turn's requests): the first one in full, the repeats counted, and how many
// there were said when a write succeeds again or fails another way. The batch journal is
// written by whole batches alone (POST /events, the daemon's own events): a turn's lines written
// to the day file do not say it is writable again.

/** The append path's failed writes, as the log says them. */
export class WriteFailures {
  private last: { file: string; code: string; since: string; more: number } | undefined;

  /** `journal`: the batch journal's path (`.meridian/batch.json`). */
  constructor(private readonly clock: Clock, private readonly logger: Logger, private readonly journal: string) {}

  /** A write to `file` failed with `code`; `message` says it (logged unless it repeats the last failure). */
  failed(file: string, code: string, message: string): void {
    const last = this.last;
    if (last !== undefined && last.file === file && last.code === code) {
      last.more++;
      return;
    }
    this.sayRepeats();
    this.last = { file, code, since: formatTs(this.clock.now()), more: 0 };
    this.logger.error(`${message} (said once until a write succeeds)`);
  }

  /** A batch was written (`whole`: through the journal): the repeats of the last failure, if any, are said. */
  succeeded(whole: boolean): void {
    if (this.last === undefined || (this.last.file === this.journal && !whole)) return;
    this.sayRepeats();
    this.last = undefined;
  }

  private sayRepeats(): void {
    const last = this.last;
    if (last === undefined || last.more === 0) return;
    this.logger.error(`${last.more} more write(s) to ${last.file} failed (${last.code}) since ${last.since}; not recorded (503)`);
  }
}
