import type { ForwardRecord } from './record.js';
import { judgeAnswer, peerClient } from './http-answer.js';
import type { HttpSinkSpec, Sink } from './sink.js';

// The HTTP sink: each batch is one POST of NDJSON, one record per line:
// {"id":"site:41","unit":"pan012","stream":"site","seq":41,"envelope":{...the line as stored...}}; an ephemeral
// event (sent live, in a POST of its own) has "ephemeral":true after "seq"; the unit's current
// view, sent first after an outage, is a POST of records with "current":true there.
// A 2xx acknowledges the batch; a 4xx other than 408 and 429 refuses it for good. A redirect
// is never followed (the batch and the headers, authorization among them, would go to a host
// nobody configured): a 3xx is a failure that names where it pointed, retried like a 5xx.

/** A record's flag after its seq: an ephemeral event, or a reading of the current view. */
type Flag = 'ephemeral' | 'current' | undefined;

/** A line of a body: what a record carries (a current reading too). */
interface BodyRecord {
  readonly stream: string;
  readonly seq: number;
  readonly line: string;
  readonly ephemeral?: true;
}

/** The body of one POST: a record per line, the envelope embedded byte for byte (bytes: no body string to build and encode again). */
export function ndjsonBody(records: readonly BodyRecord[], unit: string, flag?: Flag): Buffer {
  return bodyInto(records, unit, undefined, flag).body;
}

/** The body written into `spare` when it is large enough (else a new buffer): the body, and the whole buffer behind it to use again. */
function bodyInto(records: readonly BodyRecord[], unit: string, spare: Buffer | undefined, flag?: Flag): { body: Buffer; backing: Buffer } {
  let chars = 0;
  for (const r of records) chars += r.line.length;
  // ASCII lines fit at once; a line of other characters (up to 3 bytes each) grows the buffer
  const size = chars + records.length * 96;
  let buf: Buffer = spare !== undefined && spare.length >= size ? spare : Buffer.allocUnsafe(size);
  let at = 0;
  let stream = '';
  let quoted = '';
  const unitField = `"unit":${JSON.stringify(unit)},`;
  for (const r of records) {
    if (r.stream !== stream) [stream, quoted] = [r.stream, JSON.stringify(r.stream)];
    const marked = flag ?? (r.ephemeral ? 'ephemeral' : undefined);
    const head = `{"id":"${quoted.slice(1, -1)}:${r.seq}",${unitField}"stream":${quoted},"seq":${r.seq},${marked ? `"${marked}":true,` : ''}"envelope":`;
    const need = at + 3 * (head.length + r.line.length) + 2;
    if (need > buf.length) buf = grown(buf, at, need);
    at += buf.write(head, at, 'utf8');
    at += buf.write(r.line, at, 'utf8');
    at += buf.write('}\n', at, 'latin1');
  }
  return { body: buf.subarray(0, at), backing: buf };
}

// a buffer of at least `need` bytes holding the first `used` bytes of `buf`
function grown(buf: Buffer, used: number, need: number): Buffer {
  const next = Buffer.allocUnsafe(Math.max(need, buf.length * 2));
  buf.copy(next, 0, 0, used);
  return next;
}

/**
 * A sink POSTing the records of unit `who.unit` to `spec.url` with `spec.headers` (for authorization);
 * each POST says this daemon's run in `X-Meridian-Instance` (a receiver can tell two daemons of one unit id apart).
 */
export function httpSink(spec: HttpSinkSpec, who: { id: string; instance: string }): Sink {
  const unit = who.id;
  const peer = peerClient(spec, { 'content-type': 'application/x-ndjson', 'x-meridian-instance': who.instance });
  // the body of the next batch, built while the batch before was in flight
  let prepared: { records: readonly ForwardRecord[]; body: Buffer; backing: Buffer } | undefined;
  // body buffers no request holds any more, used again (a new one each batch made the GC run
  // for their external memory): at most two are in use, the one in flight and the one prepared
  const spare: Buffer[] = [];
  return {
    prepare(records) {
      if (prepared) spare.push(prepared.backing);
      prepared = { records, ...bodyInto(records, unit, spare.pop()) };
    },
    async send(records, signal, extra) {
      let built = prepared?.records === records ? prepared : undefined;
      if (prepared && !built) spare.push(prepared.backing);
      prepared = undefined;
      // no records: the current view alone (fresh first after an outage)
      const current = records.length === 0 ? extra?.current ?? [] : undefined;
      if (current?.length === 0) return;
      built ??= current ? { records, ...bodyInto(current, unit, spare.pop(), 'current') } : { records, ...bodyInto(records, unit, spare.pop()) };
      let res;
      try {
        res = await peer.post(spec.url, { body: built.body, signal });
      } finally {
        // answered, failed or aborted (the socket destroyed): nothing writes from it any more
        spare.push(built.backing);
      }
      judgeAnswer(res, 'peer', "the sink's url");
    },
    async close() {
      peer.close();
    },
  };
}
