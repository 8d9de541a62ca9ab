import type { Logger } from '../../lib/log.js';
import type { Clock } from '../../lib/time.js';
import type { ConditionsConfig } from '../conditions/config.js';
import { readConditions } from '../conditions/read.js';
import type { FreshnessJudge } from '../freshness/judge.js';
import type { VerdictState } from '../safety/verdict-event.js';
import type { StorageFs } from '../storage/storage-fs.js';
import type { BoltwoodSpec } from './boltwood-config.js';
import { BoltwoodWriter, type BoltwoodStatus } from './boltwood-writer.js';
import { indiProxyText, watcherText } from './indi.js';

// The protocol outputs of one daemon (docs/integrations.md): the INDI texts answered by
// GET /safety/indi and /safety/watcher, each made when asked from the verdict (judged again
// first, as GET /safety does) and the [conditions] mapping read at that moment; and the
// Boltwood file's writer when [boltwood] configures one.

/** What the outputs read. */
export interface OutputsOptions {
  readonly verdict: { current(): VerdictState };
  readonly judge: FreshnessJudge;
  readonly conditions: ConditionsConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The site's zone (the Boltwood file's local date and time). */
  readonly zone: string;
  readonly boltwood?: BoltwoodSpec;
  readonly io?: StorageFs;
}

/** The outputs of one daemon. */
export interface Outputs {
  indiText(): string;
  watcherText(): string;
  /** GET /status `outputs`: undefined when no file output is configured. */
  status(): { boltwood: BoltwoodStatus } | undefined;
  start(): void;
  stop(): void;
}

/** The outputs over `opts` (the Boltwood writer starts with start()). */
export function createOutputs(opts: OutputsOptions): Outputs {
  const conditions = () => readConditions(opts.judge, opts.conditions, opts.clock.now());
  const boltwood = opts.boltwood && new BoltwoodWriter({
    spec: opts.boltwood, verdict: opts.verdict, conditions, clock: opts.clock, zone: opts.zone, logger: opts.logger, io: opts.io,
  });
  return {
    indiText: () => indiProxyText(opts.verdict.current()),
    watcherText: () => {
      const verdict = opts.verdict.current();
      return watcherText(verdict, conditions());
    },
    status: () => (boltwood ? { boltwood: boltwood.status() } : undefined),
    start: () => boltwood?.start(),
    stop: () => boltwood?.stop(),
  };
}
