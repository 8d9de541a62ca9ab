import type { Logger } from '../../lib/log.js';
import { formatTs, type Clock } from '../../lib/time.js';
import { writeFileAtomic } from '../storage/state-files.js';
import { nodeFs, type StorageFs } from '../storage/storage-fs.js';
import type { VerdictState } from '../safety/verdict-event.js';
import type { ConditionValue } from '../conditions/read.js';
import type { BoltwoodSpec } from './boltwood-config.js';
import { boltwoodLine, type BoltwoodLine } from './boltwood-line.js';

// The Boltwood file rewritten every `every_s` while the daemon runs: each time whole or not at
// all (a temporary file beside it, synced, renamed over it: a reader sees the old line or the
// new one, never part of one). A write that fails (an unwritable or missing directory, a path
// that is a directory, a full disk) leaves the old file as it was, is logged once per change
// of state (failing, failing otherwise, writing again), and is shown in GET /status.

/** What the writer reads and where it writes. */
export interface BoltwoodWriterOptions {
  readonly spec: BoltwoodSpec;
  readonly verdict: { current(): VerdictState };
  readonly conditions: () => readonly ConditionValue[];
  readonly clock: Clock;
  /** The site's zone (the file's date and time are local). */
  readonly zone: string;
  readonly logger: Logger;
  readonly io?: StorageFs;
}

/** The writer's line of GET /status `outputs`. */
export interface BoltwoodStatus {
  path: string;
  every_s: number;
  last_written: string | null;
  since: number | null;
  alert: boolean | null;
  error: string | null;
}

/** Writes the Boltwood file on a timer. */
export class BoltwoodWriter {
  private readonly opts: BoltwoodWriterOptions;
  private timer: NodeJS.Timeout | undefined;
  private lastWritten: number | undefined;
  private last: BoltwoodLine | undefined;
  private error: string | undefined;

  constructor(opts: BoltwoodWriterOptions) {
    this.opts = opts;
  }

  /** Write now, then every `every_s`. */
  start(): void {
    this.writeNow();
    this.timer = setInterval(() => this.writeNow(), this.opts.spec.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Make the line and write it; the line, or undefined when the write failed (the old file kept). */
  writeNow(): BoltwoodLine | undefined {
    const { spec, clock } = this.opts;
    const now = clock.now();
    let line: BoltwoodLine;
    try {
      line = boltwoodLine(spec, this.opts.verdict.current(), this.opts.conditions(), now, this.opts.zone);
      const bytes = Buffer.from(line.text, 'latin1');
      writeFileAtomic(spec.path, (put) => put(bytes), this.opts.io ?? nodeFs, { syncDir: false });
    } catch (error) {
      this.failed(error as NodeJS.ErrnoException);
      return undefined;
    }
    if (this.error !== undefined) this.opts.logger.info(`the Boltwood file ${spec.path} is written again`);
    this.error = undefined;
    this.lastWritten = now;
    this.last = line;
    return line;
  }

  /** The writer's state for GET /status. */
  status(): BoltwoodStatus {
    return {
      path: this.opts.spec.path, every_s: this.opts.spec.everyMs / 1000,
      last_written: this.lastWritten === undefined ? null : formatTs(this.lastWritten),
      since: this.last?.since ?? null, alert: this.last?.alert ?? null, error: this.error ?? null,
    };
  }

  // what a reader of the path finds meanwhile: the previous file only when there is one
  private whatIsThere(): string {
    try {
      const stat = (this.opts.io ?? nodeFs).statSync(this.opts.spec.path);
      return stat.isFile() ? 'the previous one is left as it was' : 'no file is there (something else is in its place)';
    } catch {
      return 'no file is there yet';
    }
  }

  private failed(error: NodeJS.ErrnoException): void {
    const message = `cannot write the Boltwood file ${this.opts.spec.path} (${error.code ?? error.message}); ${this.whatIsThere()}`;
    if (message !== this.error) this.opts.logger.warn(message);
    this.error = message;
  }
}
