import type { UnitAlarms } from '../../lib/unit-alarms.js';
import type { RetryBounds } from './backoff.js';
import type { ForwardRecord } from './record.js';


// What every sink is: a way to deliver a batch of records and say whether the peer took
// them, refused them for good, or could not be reached. The cursor, retries and dead
// letters are the forwarder's (forwarder.ts), the same for every sink.

/** The kinds of sink, by URL scheme: mqtt://, postgres://, http(s)://. */
export type SinkKind = 'mqtt' | 'postgres' | 'http';

/** Settings every sink has (docs/forwarding.md lists them with their defaults). */
export interface SinkCommon {
  /** Names the cursor and dead-letter files; keep it when the URL changes to keep the cursor. */
  readonly name: string;
  readonly kind: SinkKind;
  /** The URL as configured (it may hold credentials: show it only through redactUrl). */
  readonly url: string;
  /** A batch holds at most this many records and bytes of envelopes. */
  readonly batchRecords: number;
  readonly batchBytes: number;
  /** After new events wake an idle sink, wait this long for more before sending. */
  readonly lingerMs: number;
  readonly retry: RetryBounds;
  /** A sink whose deliveries fail for this long is `failing` (before that: `retrying`). */
  readonly failingAfterMs: number;
  /** How long one delivery may take before it counts as failed. */
  readonly timeoutMs: number;
  /** Where a sink without a cursor starts: the oldest file on disk, or the end of the log. */
  readonly start: 'beginning' | 'end';
  /** Whether ephemeral events are sent live (best-effort); always false for PostgreSQL. */
  readonly ephemeral: boolean;
  /** How many ephemeral events may wait for the sink; past that the oldest is dropped. */
  readonly ephemeralQueue: number;
}

/** An MQTT sink: each event to `<prefix>/<type>` at QoS 1, the latest retained at `<prefix>/current/<type>`. */
export interface MqttSinkSpec extends SinkCommon {
  readonly kind: 'mqtt';
  readonly prefix: string;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly retainCurrent: boolean;
  /** Topics gain the unit as a level: `<prefix>/<unit>/<type>` (`unit_topic`). */
  readonly unitTopic: boolean;
  /** Announce this daemon's instance at `<prefix>/%instance` and say when another one announces itself (`clash_check`). */
  readonly clashCheck: boolean;
}

/** A PostgreSQL sink: rows keyed by (stream, seq) in `table`. */
export interface PostgresSinkSpec extends SinkCommon {
  readonly kind: 'postgres';
  readonly table: string;
  readonly password: string | undefined;
}

/** An HTTP sink: batches POSTed as NDJSON, with extra headers (authorization). */
export interface HttpSinkSpec extends SinkCommon {
  readonly kind: 'http';
  readonly headers: Readonly<Record<string, string>>;
  /** A `[[notify]]` sink: only `meridian.escalation` records, one POST each in this format (notify.ts). */
  readonly notify?: NotifyFormat;
}

/** How a `[[notify]]` sink writes an escalation: Meridian's JSON, an ntfy message, or a chat webhook's `{"text"}`. */
export type NotifyFormat = 'json' | 'ntfy' | 'slack';

/** One configured sink. */
export type SinkSpec = MqttSinkSpec | PostgresSinkSpec | HttpSinkSpec;

/** One reading of the unit's current view as a sink sends it (`GET /current/<type>`'s envelope). */
export interface CurrentReading {
  readonly type: string;
  /** The stream the reading was recorded in (`site` or the run id). */
  readonly stream: string;
  readonly seq: number;
  readonly ts: string;
  /** The envelope exactly as recorded. */
  readonly line: string;
}

/** What goes with a batch besides its records: current readings, and the sink's lag after it. */
export interface SendExtra {
  /** Current readings to send with the batch (PostgreSQL: in its transaction), or alone when there are no records. */
  readonly current?: readonly CurrentReading[];
  /** `current` is the whole view: a type it lacks is no longer current (PostgreSQL deletes its row). */
  readonly wholeView?: boolean;
  /** Events still to deliver once this batch is acknowledged, and the age of the newest one it holds (s). */
  readonly lag?: { readonly events: number; readonly seconds: number };
  /** The unit's clock (ms) as the batch is sent: the units table keeps its offset against the database's. */
  readonly unitNowMs?: number;
  /** The version of this daemon (the units table). */
  readonly version?: string;
  /** The unit's alarms at `unitNowMs`, for its units row (null: no [[alarm]] configured). */
  readonly alarms?: UnitAlarms | null;
  /** false: the unit's line is not written with this batch (written at most once a second while catching up, and whenever its alarms changed). */
  readonly unitRow?: boolean;
}

/** A delivery channel to one peer. */
export interface Sink {
  /**
   * Deliver the records (all of one stream, in seq order; none when only current readings go). Resolves once the peer has
   * acknowledged every one; rejects with SinkRejection when the peer refused them for good
   * (a 4xx, a row the database refuses), with any other error when delivery may succeed later.
   */
  send(records: readonly ForwardRecord[], signal: AbortSignal, extra?: SendExtra): Promise<void>;
  /**
   * Optional: do ahead of time what `send` would do first with these records (the HTTP body),
   * while the batch before is in flight; a later `send` of the same array uses it.
   */
  prepare?(records: readonly ForwardRecord[]): void;
  /**
   * Optional: `listener` is called when the peer may have lost what it held of the unit's view
   * (an MQTT broker's retained readings: a connection without a session, one lost while idle;
   * PostgreSQL: the unit's units row found gone, `telemetry fleet retire` while the unit was paused);
   * the forwarder then sends the whole view again (fresh first), also when the sink is idle.
   */
  onPeerReset?(listener: () => void): void;
  /** Optional: `listener` is told (one sentence) when another daemon forwards as this unit (MQTT's `clash_check`). */
  onClash?(listener: (text: string) => void): void;
  /** Close connections; must not wait long for a peer that is down. */
  close(): Promise<void>;
}

// marks a SinkRejection whichever copy of this module made it: a sink's module is imported on
// demand (lazy-sink.ts), and a loader may give that import a module instance of its own (the
// tests' CommonJS transform does), whose class a plain instanceof would not recognise
const REJECTION = Symbol.for('meridian.sink-rejection');

/** The peer refused these records for good: retrying the same records cannot succeed. */
export class SinkRejection extends Error {
  readonly [REJECTION] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SinkRejection';
  }

  /** `instanceof SinkRejection` for a rejection of any instance of this module. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [REJECTION]?: unknown })[REJECTION] === true;
  }
}

/** The text of an error for logs and /status (never a stack). */
export function errorText(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return errorText(error.errors[0]);
  const e = error as { code?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' && e.message !== '' ? e.message : String(error);
  return typeof e?.code === 'string' && !message.includes(e.code) ? `${message} (${e.code})` : message;
}
