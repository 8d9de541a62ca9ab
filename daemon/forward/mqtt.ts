import { randomBytes } from 'node:crypto';
import mqtt from 'mqtt';
import type { ForwardRecord } from './record.js';
import { SinkRejection, type MqttSinkSpec, type Sink } from './sink.js';

// The MQTT sink (MQTT 5): each envelope to `<prefix>/<type>` at QoS 1 with the user properties
// `stream`, `seq` and `id` (`stream:seq`); then, for each type in the batch, the current reading
// retained at `<prefix>/current/<type>`. A batch is acknowledged once every PUBACK has come.

// PUBACK reasons that refuse the message itself: not authorized, topic name invalid,
// packet too large, payload format invalid. Others (quota exceeded...) may pass later.
const REFUSING_REASONS = new Set([0x87, 0x90, 0x95, 0x99]);

/** The topic level of an event type: `+`, `#` and `%` are %-escaped (they are wildcards in MQTT). */
export function topicOfType(type: string): string {
  return type.replace(/[%+#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A sink publishing to the broker at `spec.url`; `current(type)` gives the current reading's JSON. */
export function mqttSink(spec: MqttSinkSpec, current: (type: string) => string | undefined): Sink {
  let conn: { client: mqtt.MqttClient; lost: Promise<never> } | undefined;

  const connect = async () => {
    const client = await mqtt.connectAsync(spec.url, {
      protocolVersion: 5, reconnectPeriod: 0, connectTimeout: spec.timeoutMs, clean: true,
      username: spec.username, password: spec.password,
      clientId: `meridian-${spec.name}-${randomBytes(3).toString('hex')}`,
    });
    const lost = new Promise<never>((_, reject) => {
      client.on('close', () => {
        if (conn?.client === client) conn = undefined;
        reject(new Error('the broker closed the connection'));
      });
    });
    lost.catch(() => undefined);
    client.on('error', () => undefined); // reported through 'close' and the publishes
    conn = { client, lost };
    return conn;
  };

  return {
    async send(records, signal) {
      const { client, lost } = conn ?? await connect();
      const onAbort = () => client.end(true);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        await Promise.race([Promise.all(publishes(client, spec, records, current)), lost]);
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
    async close() {
      const c = conn;
      conn = undefined;
      if (c) await c.client.endAsync(true).catch(() => undefined);
    },
  };
}

function publishes(client: mqtt.MqttClient, spec: MqttSinkSpec, records: readonly ForwardRecord[],
  current: (type: string) => string | undefined): Promise<unknown>[] {
  const sent: Promise<unknown>[] = [];
  const types = new Set<string>();
  for (const r of records) {
    const userProperties = { stream: r.stream, seq: String(r.seq), id: `${r.stream}:${r.seq}` };
    sent.push(client.publishAsync(`${spec.prefix}/${topicOfType(r.type)}`, r.line, { qos: 1, properties: { userProperties } }));
    types.add(r.type);
  }
  if (spec.retainCurrent) {
    for (const type of types) {
      const reading = current(type);
      if (reading !== undefined) sent.push(client.publishAsync(`${spec.prefix}/current/${topicOfType(type)}`, reading, { qos: 1, retain: true }));
    }
  }
  return sent;
}
