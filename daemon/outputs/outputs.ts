import type { Clock } from '../../lib/time.js';
import type { ConditionsConfig } from '../conditions/config.js';
import { readConditions } from '../conditions/read.js';
import type { FreshnessJudge } from '../freshness/judge.js';
import type { VerdictState } from '../safety/verdict-event.js';
import { indiProxyText, watcherText } from './indi.js';

// The protocol outputs of one daemon (docs/integrations.md): the INDI texts answered by
// GET /safety/indi and /safety/watcher, each made when asked from the verdict (judged again
// first, as GET /safety does) and the [conditions] mapping read at that moment.

/** What the outputs read. */
export interface OutputsOptions {
  readonly verdict: { current(): VerdictState };
  readonly judge: FreshnessJudge;
  readonly conditions: ConditionsConfig;
  readonly clock: Clock;
}

/** The INDI texts of one daemon. */
export interface ProtocolTexts {
  indiText(): string;
  watcherText(): string;
}

/** The INDI texts over `opts`. */
export function protocolTexts(opts: OutputsOptions): ProtocolTexts {
  return {
    indiText: () => indiProxyText(opts.verdict.current()),
    watcherText: () => {
      const verdict = opts.verdict.current();
      return watcherText(verdict, readConditions(opts.judge, opts.conditions, opts.clock.now()));
    },
  };
}
