import type { UnitAlarms } from '../../lib/unit-alarms.js';
import type { CurrentReading, SinkSpec } from './sink.js';

// Fresh first: a sink that comes back after a failed delivery, or starts with a backlog (a
// PostgreSQL sink: at every start), sends the unit's whole current view before its backlog, so
// the central "now" is the unit's now within one delivery however long the backlog
// (docs/fleet.md). A PostgreSQL sink also sends, with each batch, the current readings changed
// since its last one (its current table follows the view live).

/** The unit's current view as sinks read it. */
export interface CurrentSource {
  /** The types of the view. */
  types(): string[];
  /** The reading of a type as a sink sends it (undefined when the view has none). */
  reading(type: string): CurrentReading | undefined;
  /** The unit's alarms now (null: none configured). */
  alarms(): UnitAlarms | null;
}

/** The unit's line as a transaction writes it: whether it is written, the unit's clock, its alarms then. */
export interface UnitLine {
  unitRow: boolean;
  unitNowMs: number;
  alarms: UnitAlarms | null;
}

/**
 * Whether a sink starting sends the whole view first: a sink behind (PostgreSQL: any, its current
 * table is the central view), and an MQTT sink retaining the view (its broker may have restarted
 * with its retained store emptied while this daemon was down).
 */
export function viewFirstAtStart(spec: SinkSpec, lag: number, view: CurrentSource): boolean {
  return spec.kind === 'postgres' || lag > 0 || (spec.kind === 'mqtt' && spec.retainCurrent && view.types().length > 0);
}

// a catching-up PostgreSQL sink writes the unit's line at most this often (each batch alone is one statement then)
const UNIT_ROW_MS = 1000;
// an idle PostgreSQL sink says the unit is alive (its units row) this often
const HEARTBEAT_MS = 10_000;

/** Which current readings one sink has yet to send, and whether the unit's line is due. */
export class CurrentFeed {
  private whole = false;
  private unitRowAt = -Infinity;
  private deliveredAt = -Infinity;
  /** The alarms of the unit's line last sent (a change writes the line at once, not a second later). */
  private alarmsSent: string | undefined;
  /** The lag (events) of the unit's line last sent (undefined: unknown): the batch that drains the backlog writes 0 at once. */
  private lagSent: number | undefined;
  private readonly changed = new Set<string>();
  private readonly source: CurrentSource;
  private readonly everyChange: boolean;

  /** `everyChange`: each changed reading is sent too (PostgreSQL), not only the whole view after an outage. */
  constructor(source: CurrentSource, everyChange: boolean) {
    this.source = source;
    this.everyChange = everyChange;
  }

  /** A type's current reading changed. Cheap: runs on the write path. */
  changedType(type: string): void {
    if (this.everyChange && !this.whole) this.changed.add(type);
  }

  /** A delivery failed (or the sink starts behind): the whole view goes first once the peer takes deliveries. */
  outage(): void {
    this.whole = true;
    this.alarmsSent = undefined;
    this.lagSent = undefined;
    this.changed.clear();
  }

  /** Whether the whole view waits to be sent before the next batch. */
  get wholePending(): boolean {
    return this.whole;
  }

  /** The sink's peer acknowledged a delivery at `nowMs`. */
  delivered(nowMs: number): void {
    this.deliveredAt = nowMs;
  }

  /**
   * Whether an idle sink sends current readings alone now: the whole view after an outage; for
   * PostgreSQL also readings changed with no event to carry them (ephemeral), or a heartbeat.
   */
  dueWhenIdle(nowMs: number): boolean {
    return this.whole || (this.everyChange && (this.changed.size > 0 || nowMs - this.deliveredAt >= HEARTBEAT_MS));
  }

  /**
   * The unit's line of a send at `nowMs`: always with current readings alone (`always`: they do not
   * count against the second); with a batch when its alarms changed since the line last sent, when
   * it brings the lag (`lagEvents`, after it) to 0 from another, or when a second has passed (then
   * it is not due again for a second).
   */
  unitLine(nowMs: number, always = false, lagEvents?: number): UnitLine {
    const alarms = this.source.alarms();
    const key = JSON.stringify(alarms);
    const line = { unitNowMs: nowMs, alarms };
    const drained = lagEvents === 0 && this.lagSent !== 0;
    const due = always || drained || key !== this.alarmsSent || nowMs - this.unitRowAt >= UNIT_ROW_MS || nowMs < this.unitRowAt;
    if (!due) return { unitRow: false, ...line };
    if (!always) this.unitRowAt = nowMs;
    this.alarmsSent = key;
    this.lagSent = lagEvents;
    return { unitRow: true, ...line };
  }

  /** The readings to send now (the whole view, or the changed ones), no longer pending: a failed send calls outage(). */
  take(): { current: CurrentReading[]; wholeView: boolean } {
    const wholeView = this.whole;
    const types = wholeView ? this.source.types() : [...this.changed];
    this.whole = false;
    this.changed.clear();
    return { current: types.flatMap((type) => this.source.reading(type) ?? []), wholeView };
  }
}
