import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../lib/time.js';
import type { CurrentView } from '../storage/current-view.js';

// The age of each type's current reading, one series per type, capped: a site with 100,000
// types must not make 100,000 series (Prometheus keeps every series it ever saw).

/** Register the reading-age gauges; at each scrape they read the view as it is then. */
export function registerReadingAges(registry: Registry, view: () => CurrentView | undefined, clock: Clock, maxTypes: number): void {
  // the first maxTypes names, sorted again only when the set of types changed (sorting
  // 100,000 names took ~100 ms a scrape)
  let exported: { version: number; types: string[] } | undefined;
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
    help: `Seconds since the ts of each type's current reading (the first ${maxTypes} types by name; see meridian_reading_age_types_omitted).`,
    labelNames: ['type'],
    registers: [registry],
    collect() {
      this.reset();
      const current = view();
      if (!current) return;
      const now = clock.now();
      for (const type of exportedTypes(current)) {
        const ts = Date.parse(current.get(type)!.envelope.ts);
        if (Number.isFinite(ts)) this.labels(type).set((now - ts) / 1000);
      }
    },
  });
}
