import type { Envelope } from '../../lib/wire.js';
import type { TargetKind } from './target.js';

// The latest envelope of every type: the site view overlaid by the active run's view.

/** One reading in a view: the envelope and its serialized JSON (the line as stored). */
export interface Reading {
  readonly envelope: Envelope;
  readonly json: string;
}

/** The site and run views and the merged `/current` body, serialized once per change. */
export class CurrentView {
  private readonly site = new Map<string, Reading>();
  private run: Map<string, Reading> | undefined;
  private generation = 0;
  /** Changes only when the set of types may have changed (a new type, run start or stop). */
  private typeGeneration = 0;
  private cached: { generation: number; body: Buffer } | undefined;

  /** A counter that changes whenever the merged view may have changed (for ETags). */
  get version(): number {
    return this.generation;
  }

  /** Record a reading in the site view, or in the run view while a run is active. */
  set(target: TargetKind, reading: Reading): void {
    const view = target === 'run' ? this.run : this.site;
    if (!view) throw new Error('no run view is open');
    if (!view.has(reading.envelope.type)) this.typeGeneration++;
    view.set(reading.envelope.type, reading);
    this.generation++;
  }

  /** Start an empty run view (run start). */
  openRun(): void {
    this.run = new Map();
    this.generation++;
    this.typeGeneration++;
  }

  /** Discard the run view (run stop); `/current` shows site readings only again. */
  closeRun(): void {
    this.run = undefined;
    this.generation++;
    this.typeGeneration++;
  }

  /** The reading of one type, run view first. */
  get(type: string): Reading | undefined {
    return this.run?.get(type) ?? this.site.get(type);
  }

  /** How many types the merged view holds. */
  get size(): number {
    let n = this.site.size;
    if (this.run) for (const type of this.run.keys()) if (!this.site.has(type)) n++;
    return n;
  }

  /** A counter that changes whenever the set of types may have changed (not on a new reading of a known type). */
  get typesVersion(): number {
    return this.typeGeneration;
  }

  /** The type names of the merged view, unsorted. */
  typeNames(): string[] {
    const names = [...this.site.keys()];
    if (this.run) for (const type of this.run.keys()) if (!this.site.has(type)) names.push(type);
    return names;
  }

  /** The site view's and the run view's readings (for snapshots). */
  entries(target: TargetKind): Reading[] {
    return [...((target === 'run' ? this.run : this.site)?.values() ?? [])];
  }

  /**
   * The `/current` answer body, `{"current": {...}}`, types sorted, as UTF-8 bytes: built and
   * encoded only after a change, so a request sends the cached bytes (with 1,000 types the
   * body is ~300 KB; encoding it per request cost more than the rest of the request).
   */
  body(): Buffer {
    if (this.cached?.generation === this.generation) return this.cached.body;
    const merged = new Map(this.site);
    if (this.run) for (const [type, reading] of this.run) merged.set(type, reading);
    const types = [...merged.keys()].sort();
    const parts = types.map((type) => `${JSON.stringify(type)}:${merged.get(type)!.json}`);
    const body = Buffer.from(`{"current":{${parts.join(',')}}}`, 'utf8');
    this.cached = { generation: this.generation, body };
    return body;
  }
}
