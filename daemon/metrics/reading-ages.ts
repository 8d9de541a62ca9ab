import { Gauge, type Registry } from 'prom-client';
import { readingAgeMs } from '../../lib/reading-age.js';
import { monotonicNow, type Clock } from '../../lib/time.js';
import type { CurrentView } from '../storage/current-view.js';

// The age of each type's current reading, one series per type, capped: a site with 100,000
// types must not make 100,000 series (Prometheus keeps every series it ever saw).

/** Register the reading-age gauges; at each scrape they read the view as it is then. */
export function registerReadingAges(registry: Registry, view: () => CurrentView | undefined, clock: Clock, maxTypes: number): void {
  // the first maxTypes names, sorted again only when the set of types changed (sorting
  // 100,000 names took ~100 ms a scrape)
  let exported: { version: number; types: string[] } | undefined;
  // a reading recovered at start-up counts as received then (lib/reading-age.ts)
  const start = { mono: monotonicNow(clock), wall: clock.now() };
  const exportedTypes = (current: CurrentView) => {
    if (exported?.version !== current.typesVersion) {
      exported = { version: current.typesVersion, types: current.typeNames().sort().slice(0, maxTypes) };
    }
    return exported.types;
  };
  new Gauge({
    name: 'meridian_reading_age_types_omitted',
    help: `Types in the current view without a meridian_reading_age_seconds series (only the first ${maxTypes} by name have one).`,
    registers: [registry],
    collect() { this.set(Math.max(0, (view()?.size ?? 0) - maxTypes)); },
  });
  new Gauge({
    name: 'meridian_reading_age_seconds',
    help: `Age of each type's current reading in seconds: since its ts, or since the daemon received it when that is longer (a clock stepped back); never negative (the first ${maxTypes} types by name; see meridian_reading_age_types_omitted).`,
    labelNames: ['type'],
    registers: [registry],
    collect() {
      this.reset();
      const current = view();
      if (!current) return;
      const now = clock.now();
      const mono = monotonicNow(clock);
      for (const type of exportedTypes(current)) {
        const reading = current.get(type)!;
        const age = readingAgeMs(Date.parse(reading.envelope.ts), reading.receivedMono, now, mono, start, reading.receivedAt);
        if (age !== undefined) this.labels(type).set(age / 1000);
      }
    },
  });
}
