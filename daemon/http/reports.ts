import { nightReport, runReport, type ReportSource } from '../reports/night-report.js';
import { runParam } from './history-query.js';
import { invalid, readQuery, type QueryPolicy } from './query.js';
import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';

// GET /reports/night/{YYYYMMDD} and GET /reports/night?run=ID: the night report (docs/reports.md).

const DAY_POLICY: QueryPolicy = { known: [], unknown: 'refuse' };
const RUN_POLICY: QueryPolicy = { known: ['run'], unknown: 'refuse' };

/** Handlers of the night report of a site day and of a run. */
export function reportHandlers({ store, history, clock, config, process, rollups }: AppDeps): Record<'night' | 'run', Handler> {
  const source = (): ReportSource => ({
    history, head: store.head(), zone: config.zone, nowMs: clock.now(), activeRun: store.activeRun()?.run_id, startedAt: process.startedAt,
    tiers: rollups,
  });
  return {
    night: async (req, res) => {
      readQuery(req.url ?? '', DAY_POLICY);
      const { text } = await nightReport(source(), req.params.day!);
      sendJson(res, 200, text);
    },
    run: async (req, res) => {
      const run = runParam(readQuery(req.url ?? '', RUN_POLICY));
      if (run === undefined || run === 'site') invalid('run must be given: the id of the run to report on (or ask for a night: /reports/night/YYYYMMDD).');
      const { text } = await runReport(source(), run);
      sendJson(res, 200, text);
    },
  };
}
