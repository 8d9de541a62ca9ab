import { formatTs } from '../../lib/time.js';
import type { AlarmSeverity } from '../../lib/wire.js';
import type { AlarmSpec } from './config.js';
import { due } from './events.js';
import { clampShelf, rank, type AlarmRecord } from './machine.js';

// An alarm's record as read from the state file at start-up, made to fit the config and the
// clock of this start (docs/alarms.md "The state file"): a level whose severity is no longer
// configured (the config changed) keeps its raised state as the nearest configured level, so a
// raised alarm whose input cannot be judged at start stays raised; a shelf ending later than 7
// days from now is clamped; an escalation due later than escalate_after from now (the clock
// was stepped back since the raise) is said (wake.ts monoDeadlines clamps it). Each is logged.

/** `record` (of the state file) fitted to `spec` at `now`; `log` gets one line per change. */
export function reloaded(spec: AlarmSpec, worst: AlarmSeverity, record: AlarmRecord, now: number, log: (line: string) => void): AlarmRecord {
  const configured = spec.levels.map((l) => l.severity);
  let r = record;
  const raised = [...new Set(r.raised.map((s) => nearest(s, configured)))];
  const severity = r.state === 'normal' ? worst : nearest(r.severity, configured);
  if (severity !== r.severity || raised.some((s, i) => s !== r.raised[i]) || raised.length !== r.raised.length) {
    const gone = [...new Set([r.severity, ...r.raised])].filter((s) => !configured.includes(s));
    if (gone.length > 0 && (r.state !== 'normal' || r.raised.length > 0)) {
      log(`alarm ${spec.id}: severity ${gone.join(', ')} is no longer configured (the config changed since the state file was written); ` +
        `kept ${r.state} as ${severity}${raised.length > 0 ? `, raised as ${raised.join(', ')}` : ''}`);
    }
    r = { ...r, severity, raised };
  }
  const clamped = clampShelf(r, now);
  if (clamped) {
    log(`alarm ${spec.id}: shelved until ${formatTs(r.shelved_until!)}, more than 7 days from now (the clock was stepped); shelved until ${formatTs(clamped.shelved_until!)}`);
    r = clamped;
  }
  if (due(spec, r) && r.raised_at! > now) {
    log(`alarm ${spec.id}: raised at ${formatTs(r.raised_at!)}, later than now (the clock was stepped); escalated at the latest ${formatTs(now + spec.escalateAfterMs!)}, escalate_after from now`);
  }
  return r;
}

// the configured severity nearest to `s` (itself when configured; of two as near, the worse)
function nearest(s: AlarmSeverity, configured: readonly AlarmSeverity[]): AlarmSeverity {
  return configured.reduce((best, c) => {
    const d = Math.abs(rank(c) - rank(s)) - Math.abs(rank(best) - rank(s));
    return d < 0 || (d === 0 && rank(c) > rank(best)) ? c : best;
  }, configured[0]!);
}
