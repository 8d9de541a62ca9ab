import { alarmHandlers } from './alarms.js';
import { currentHandlers } from './current.js';
import { eventHandlers } from './events.js';
import type { Guard } from './guard.js';
import { historyHandlers } from './history.js';
import { lifecycleHandlers } from './lifecycle.js';
import { metricsHandlers } from './metrics.js';
import { openApiHandlers } from './openapi/handler.js';
import type { AppDeps, Route } from './route.js';
import { reportHandlers } from './reports.js';
import { rollupHandlers } from './rollups.js';
import { runHandlers } from './runs.js';
import { safetyHandlers } from './safety.js';
import { streamHandlers } from './stream.js';

// The route table: every endpoint of the daemon, one row each. polka's registrations, the
// Allow header of a 405 and the fast lane are all derived from it (daemon/http/app.ts).

/** Every route of the daemon (docs/http-api.md and daemon/http/openapi/ document each). */
export function routeTable(deps: AppDeps, guard: Guard): Route[] {
  const lifecycle = lifecycleHandlers(deps, guard);
  const runs = runHandlers(deps);
  const events = eventHandlers(deps);
  const current = currentHandlers(deps);
  const openapi = openApiHandlers(deps);
  const metrics = metricsHandlers(deps);
  const history = historyHandlers(deps);
  const stream = streamHandlers(deps);
  const alarms = alarmHandlers(deps);
  const safety = safetyHandlers(deps);
  const reports = reportHandlers(deps);
  const rollups = rollupHandlers(deps);
  return [
    ['GET', '/health', lifecycle.health],
    ['GET', '/ready', lifecycle.ready],
    ['GET', '/status', lifecycle.status],
    ['GET', '/run', runs.get],
    ['POST', '/run/start', runs.start],
    ['POST', '/run/stop', runs.stop],
    ['POST', '/event', events.post, 'fast'],
    ['POST', '/events', events.batch],
    ['GET', '/current', current.all],
    ['GET', '/current/:type', current.one, 'fast'],
    ['GET', '/history', history.get],
    ['GET', '/stream', stream.get],
    ['GET', '/alarms', alarms.list],
    ['GET', '/alarms/:id', alarms.one],
    ['POST', '/alarms/:id/ack', alarms.ack],
    ['POST', '/alarms/:id/shelve', alarms.shelve],
    ['DELETE', '/alarms/:id/shelve', alarms.unshelve],
    ['GET', '/safety', safety.get],
    ['GET', '/safety/indi', safety.indi],
    ['GET', '/safety/watcher', safety.watcher],
    ['GET', '/reports/night', reports.run],
    ['GET', '/reports/night/:day', reports.night],
    ['POST', '/rollups/rebuild', rollups.rebuild],
    ['POST', '/shutdown', lifecycle.shutdown],
    ['GET', '/openapi.json', openapi.document],
    ['GET', '/metrics', metrics.scrape],
  ];
}
