import { randomBytes } from 'node:crypto';
import mqtt from 'mqtt';
import { watchInstance } from './mqtt-instance.js';
import type { ForwardRecord } from './record.js';
import { redactUrl } from './secrets.js';
import { SinkRejection, type MqttSinkSpec, type Sink } from './sink.js';

// The MQTT sink (MQTT 5): each envelope to `<prefix>/<type>` (`<prefix>/<unit>/<type>` with
// `unit_topic`) at QoS 1 with the user properties `unit`, `stream`, `seq` and `id` (`stream:seq`),
// and `ephemeral` = `true` on an ephemeral event; then, for each type in the batch, the current
// reading retained at `<prefix>/current/<type>` (with the user property `unit`). After an outage the whole current view is
// published retained first; so it is after a connection without a session (the broker may have
// restarted with its retained store emptied) and after a connection lost while idle (the
// forwarder then reconnects at once instead of at the next event). A batch is acknowledged once
// every PUBACK has come.

// PUBACK reasons that refuse the message itself: not authorized, topic name invalid,
// packet too large, payload format invalid. Others (quota exceeded...) may pass later.
const REFUSING_REASONS = new Set([0x87, 0x90, 0x95, 0x99]);

/**
 * The topic level(s) of an event type: `+`, `#` and `%` are %-escaped (they are wildcards in MQTT),
 * and a first level `current` is written `%63urrent`, so that no event topic falls under
 * `<prefix>/current`, where the retained current readings are.
 */
export function topicOfType(type: string): string {
  const escaped = type.replace(/[%+#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return escaped === 'current' || escaped.startsWith('current/') ? `%63${escaped.slice(1)}` : escaped;
}

/**
 * A sink publishing the records of unit `who.id` to the broker at `spec.url`; `current(type)` gives the current
 * reading's JSON. With `clash_check`, `who.instance` is announced (mqtt-instance.ts).
 */
export function mqttSink(spec: MqttSinkSpec, who: { id: string; instance: string }, current: (type: string) => string | undefined): Sink {
  const unit = who.id;
  const topics = { prefix: spec.unitTopic ? `${spec.prefix}/${unit}` : spec.prefix, unit };
  let conn: { client: mqtt.MqttClient; lost: Promise<never>; maxPacket: number; session: boolean } | undefined;
  // the client being connected, so that a stop can cut a connection attempt that hangs
  let opening: mqtt.MqttClient | undefined;
  // the forwarder's listener: the broker may have lost the retained view (onPeerReset)
  let reset: () => void = () => undefined;
  // connections made: the first one's view is the forwarder's start (viewFirstAtStart)
  let connections = 0;
  let clash: (text: string) => void = () => undefined;

  const connect = async () => {
    const client = mqtt.connect(spec.url, {
      protocolVersion: 5, reconnectPeriod: 0, connectTimeout: spec.timeoutMs, clean: true,
      username: spec.username, password: spec.password,
      clientId: `meridian-${spec.name}-${randomBytes(3).toString('hex')}`,
    });
    client.on('error', () => undefined); // reported through 'close' and the publishes
    opening = client;
    const connack = await new Promise<mqtt.IConnackPacket>((resolve, reject) => {
      client.once('connect', resolve);
      client.once('close', () => reject(new Error(`could not connect to ${redactUrl(spec.url)}`)));
    }).catch((error: unknown) => {
      client.end(true);
      throw error;
    }).finally(() => { opening = undefined; });
    const lost = new Promise<never>((_, reject) => {
      client.on('close', () => {
        // lost, not ended by the sink (which forgets its connection first): the view again once back
        if (conn?.client === client) {
          conn = undefined;
          if (spec.retainCurrent) reset();
        }
        reject(new Error('the broker closed the connection'));
      });
    });
    lost.catch(() => undefined);
    if (spec.clashCheck) await watchInstance(client, topics.prefix, { unit, instance: who.instance }, (text) => clash(text));
    // a broker that announces a maximum packet size disconnects a client that sends a larger one
    conn = { client, lost, maxPacket: connack.properties?.maximumPacketSize ?? Infinity, session: connack.sessionPresent };
    return conn;
  };

  return {
    async send(records, signal, extra) {
      const cut = () => opening?.end(true);
      signal.addEventListener('abort', cut, { once: true });
      const fresh = conn === undefined && connections++ > 0;
      const { client, lost, maxPacket, session } = await (conn ? Promise.resolve(conn) : connect()).finally(() => signal.removeEventListener('abort', cut));
      // a reconnection without a session: the broker may hold none of the view (unless this send is the whole view)
      if (fresh && !session && spec.retainCurrent && extra?.wholeView !== true) reset();
      const tooLarge = records.find((r) => packetSize(topics.prefix, unit, r) > maxPacket);
      if (tooLarge) throw new SinkRejection(`${tooLarge.stream}:${tooLarge.seq} is larger than the broker's maximum packet size (${maxPacket} bytes)`);
      const onAbort = () => client.end(true);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const sent = records.length > 0 ? publishes(client, spec, topics, records, current, maxPacket) : spec.retainCurrent ? retained(client, topics, extra?.current ?? [], maxPacket) : [];
        await Promise.race([Promise.all(sent), lost]);
      } catch (error) {
        const reason = (error as { code?: unknown }).code;
        if (typeof reason === 'number' && REFUSING_REASONS.has(reason)) {
          throw new SinkRejection(`the broker refused the message: ${(error as Error).message} (reason 0x${reason.toString(16)})`, { cause: error });
        }
        if (conn?.client === client) conn = undefined;
        client.end(true);
        throw error;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    onPeerReset(listener) {
      reset = listener;
    },
    onClash(listener) {
      clash = listener;
    },
    async close() {
      opening?.end(true);
      const c = conn;
      conn = undefined;
      if (c) await c.client.endAsync(true).catch(() => undefined);
    },
  };
}

// An upper bound of a PUBLISH packet's size: fixed header, topic, packet id, the user properties, payload.
function packetSize(prefix: string, unit: string, r: ForwardRecord): number {
  const id = `${r.stream}:${r.seq}`;
  return 5 + 2 + Buffer.byteLength(`${prefix}/${topicOfType(r.type)}`) + 2 + 4
    + 5 * 5 + Buffer.byteLength(`unit${unit}stream${r.stream}seq${r.seq}id${id}ephemeraltrue`) + Buffer.byteLength(r.line);
}

function publishes(client: mqtt.MqttClient, spec: MqttSinkSpec, topics: { prefix: string; unit: string }, records: readonly ForwardRecord[],
  current: (type: string) => string | undefined, maxPacket: number): Promise<unknown>[] {
  const sent: Promise<unknown>[] = [];
  const types = new Set<string>();
  for (const r of records) {
    const userProperties: Record<string, string> = { unit: topics.unit, stream: r.stream, seq: String(r.seq), id: `${r.stream}:${r.seq}` };
    if (r.ephemeral) userProperties.ephemeral = 'true';
    sent.push(client.publishAsync(`${topics.prefix}/${topicOfType(r.type)}`, r.line, { qos: 1, properties: { userProperties } }));
    types.add(r.type);
  }
  if (spec.retainCurrent) {
    const readings = [...types].flatMap((type) => {
      const line = current(type);
      return line === undefined ? [] : [{ type, line }];
    });
    sent.push(...retained(client, topics, readings, maxPacket));
  }
  return sent;
}

// each reading retained at `<prefix>/current/<type>` with the user property `unit` (one larger than the broker takes is left out)
function retained(client: mqtt.MqttClient, topics: { prefix: string; unit: string }, readings: readonly { type: string; line: string }[],
  maxPacket: number): Promise<unknown>[] {
  const sent: Promise<unknown>[] = [];
  const properties = { userProperties: { unit: topics.unit } };
  for (const { type, line } of readings) {
    const topic = `${topics.prefix}/current/${topicOfType(type)}`;
    const size = 16 + Buffer.byteLength(topic) + 9 + Buffer.byteLength(`unit${topics.unit}`) + Buffer.byteLength(line);
    if (size <= maxPacket) sent.push(client.publishAsync(topic, line, { qos: 1, retain: true, properties }));
  }
  return sent;
}
