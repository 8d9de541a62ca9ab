import { textAt } from '../../lib/exact-json.js';
import { scanMembers } from '../../lib/json-text.js';
import type { Envelope } from '../../lib/wire.js';
import { ChunkedText, DEFAULT_CHUNK_CHARS } from './chunked-text.js';

// The latest envelope of every type, whatever its target: starting or stopping a run does
// not change it (a reading taken during a run is still the newest of its type afterwards).

/** One reading: its type and seq, and the envelope line as stored (the exact text answered). */
export class Reading {
  readonly type: string;
  readonly seq: number;
  readonly json: string;
  /** false when the envelope's meta has no `max_age_s` (the reading carries no limit of its own); true: it may. */
  readonly mayCarryLimit: boolean;
  /** When the daemon received it, on the monotonic clock (ms); NaN for a reading recovered at start-up. */
  readonly receivedMono: number;
  /** Its ts in ms since the epoch as the store stamped it; NaN when not known (read from the line when needed). */
  readonly tsMs: number;
  /** Its own limit (`meta.max_age_s`) as validated: seconds, null for none; undefined when not known. */
  readonly ownLimit: number | null | undefined;
  /** When the daemon received it on the wall clock (ms since the epoch), kept in the snapshot across a restart; NaN when not known. */
  readonly receivedAt: number;
  /**
   * Its `data` as recorded, when known without a scan (a reading this daemon stamped: the text
   * the line was made of, read without flattening the line), else undefined (a line read back).
   */
  readonly dataText: string | undefined;
  private parsed: Envelope | undefined;
  private texts: Map<string, string | undefined> | undefined;

  constructor(type: string, seq: number, json: string, mayCarryLimit = true, receivedMono = NaN, tsMs = NaN, ownLimit?: number | null,
    receivedAt = NaN, dataText?: string) {
    this.type = type;
    this.seq = seq;
    this.json = json;
    this.mayCarryLimit = mayCarryLimit;
    this.receivedMono = receivedMono;
    this.tsMs = tsMs;
    this.ownLimit = ownLimit;
    this.receivedAt = receivedAt;
    this.dataText = dataText;
  }

  /**
   * The envelope as an object, parsed on first use. Numbers are JS numbers here (`1.0` is 1,
   * 20-digit integers are rounded): whatever must be exact uses `json`.
   */
  get envelope(): Envelope {
    this.parsed ??= JSON.parse(this.json) as Envelope;
    return this.parsed;
  }

  /** The JSON text of the value at `path` inside the envelope's `part` as recorded (undefined when absent), found once per path: every rule and alarm reading it asks again. */
  textOf(part: 'data' | 'meta', path: readonly (string | number)[]): string | undefined {
    const key = `${part}\u0000${path.join('\u0000')}`;
    this.texts ??= new Map();
    if (this.texts.has(key)) return this.texts.get(key);
    const span = scanMembers(this.json)?.get(part);
    const text = span === undefined ? undefined : textAt(this.json.slice(span.start, span.end), path);
    this.texts.set(key, text);
    return text;
  }
}

/** The current view and the `/current` body, serialized once per change. */
export class CurrentView {
  private readonly readings = new Map<string, Reading>();
  private generation = 0;
  private typeGeneration = 0;
  private readonly chunkChars: number;
  private cached: { generation: number; body: Buffer[] } | undefined;

  /** `chunkChars`: the size of the chunks the `/current` body is built in (see chunks()). */
  constructor(chunkChars: number = DEFAULT_CHUNK_CHARS) {
    this.chunkChars = chunkChars;
  }

  /** The chunk size of the body, for answers built around it (freshness). */
  get bodyChunkChars(): number {
    return this.chunkChars;
  }

  /** A counter that changes whenever the view changed (for ETags and snapshots). */
  get version(): number {
    return this.generation;
  }

  /** Make `reading` the current one of its type. */
  set(reading: Reading): void {
    if (!this.readings.has(reading.type)) this.typeGeneration++;
    this.readings.set(reading.type, reading);
    this.generation++;
  }

  /** The reading of one type. */
  get(type: string): Reading | undefined {
    return this.readings.get(type);
  }

  /** How many types the view holds. */
  get size(): number {
    return this.readings.size;
  }

  /** A counter that changes whenever the set of types may have changed (not on a new reading of a known type). */
  get typesVersion(): number {
    return this.typeGeneration;
  }

  /** The type names of the view, unsorted. */
  typeNames(): string[] {
    return [...this.readings.keys()];
  }

  /** Every reading (for snapshots). */
  entries(): Reading[] {
    return [...this.readings.values()];
  }

  /**
   * The `/current` answer body, `{"current": {...}}`, types sorted, as UTF-8 chunks of about
   * `chunkChars` characters (one chunk for a view smaller than that), never one string of
   * the whole: a view may be larger than the longest string V8 can hold. Built and encoded
   * only after a change, so a request sends the cached bytes (with 1,000 types the body is
   * ~300 KB; encoding it per request cost more than the rest of the request).
   */
  chunks(): readonly Buffer[] {
    if (this.cached?.generation === this.generation) return this.cached.body;
    const types = [...this.readings.keys()].sort();
    const text = new ChunkedText(this.chunkChars);
    text.add('{"current":{');
    types.forEach((type, i) => text.add(`${i === 0 ? '' : ','}${JSON.stringify(type)}:${this.readings.get(type)!.json}`));
    text.add('}}');
    const body = text.finish();
    this.cached = { generation: this.generation, body };
    return body;
  }
}
