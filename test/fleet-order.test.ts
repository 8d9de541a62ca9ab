import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseMaxAge } from '../lib/max-age.js';
import { alarmCell, fleetUnits, type UnitRow } from '../table/fleet-units.js';

// The order `telemetry fleet` and its console give the units (docs/cli.md, fleet): silent, then
// unjudged, then duplicate, then those that need a look (unsafe, an alarm standing, stale
// readings: unsafe first, then the worst alarm, then the most stale), then the rest by name; and
// each unit's ALARM cell, a silent one's marked `?`.

const row = (unit: string, o: { heard?: number; safe?: boolean; alarm?: [string, number]; staleTypes?: number; duplicate?: boolean } = {}): UnitRow => ({
  unit, version: '0.1.0', lag_events: 0, lag_seconds: 0, last_heard: '2026-11-25T00:00:00.000Z', heard_s: o.heard ?? 1, newest_ts: null,
  duplicate_at: o.duplicate ? '2026-11-25T00:00:00.000Z' : null, duplicate_s: o.duplicate ? 5 : null, safe: o.safe ?? null,
  alarm_severity: o.alarm?.[0] ?? null, alarm_unacked: o.alarm?.[1] ?? null, alarm_id: o.alarm && o.alarm[0] !== 'none' ? 'a' : null, alarm_at: o.alarm ? '2026-11-25T00:00:00.000Z' : null,
  readings: Array.from({ length: o.staleTypes ?? 0 }, (_, i) => ({ type: `t${i}`, age_s: 1000, max_age_s: 10 })),
});

test('the order: silent, unjudged, duplicate; then unsafe, worst alarm, most stale; then the rest by name', () => {
  const rows = [
    row('ok-b'), row('ok-a', { alarm: ['none', 0] }), row('stale-1', { staleTypes: 1 }), row('stale-2', { staleTypes: 2 }),
    row('warn-acked', { alarm: ['warning', 0] }), row('crit-acked', { alarm: ['critical', 0] }), row('crit-unacked', { alarm: ['critical', 1] }),
    row('serious-stale', { alarm: ['serious', 1], staleTypes: 1 }), row('unsafe', { safe: false }), row('dup', { duplicate: true }),
    row('ahead', { heard: -5 }), row('gone', { heard: 3600, alarm: ['critical', 1] }),
  ];
  const units = fleetUnits(rows, 60_000, parseMaxAge('*=600', '--max-age'));
  assert.equal(units.map((u) => [u.unit, u.state, alarmCell(u.alarm)]), [
    ['gone', 'silent', 'critical!?'], ['ahead', 'unjudged', '-'], ['dup', 'duplicate', '-'],
    ['unsafe', 'ok', '-'], ['crit-unacked', 'ok', 'critical!'], ['crit-acked', 'ok', 'critical'], ['serious-stale', 'stale', 'serious!'],
    ['warn-acked', 'ok', 'warning'], ['stale-2', 'stale', '-'], ['stale-1', 'stale', '-'], ['ok-a', 'ok', 'none'], ['ok-b', 'ok', '-'],
  ]);
});

test('a row whose alarm_severity is not one the sink writes (an operator\'s edit) is shown as none configured, never guessed', () => {
  const units = fleetUnits([row('odd', { alarm: ['fatal', 1] })], 60_000, parseMaxAge('*=600', '--max-age'));
  assert.equal(units.map((u) => u.alarm), [null]);
});

test.run();
