import type mqtt from 'mqtt';

// The MQTT sink's clash check (`clash_check = true`; docs/fleet.md, What the database cannot tell):
// every daemon announces its instance (a random id of each daemon run) retained at
// `<prefix>/%instance` (with the user property `unit`, as every message of the sink) and listens there. An announcement that arrives live (not the retained
// one the broker hands over at subscription: that may be of a daemon gone, this unit before a
// restart) from another instance is another daemon forwarding as this unit to this prefix now.
// Each side answers a new one once with its own announcement, so that both hear of each other.

/** Where a unit's daemons announce themselves: `%` alone is never in an event type's topic (topicOfType writes it `%25`). */
export function instanceTopic(prefix: string): string {
  return `${prefix}/%instance`;
}

/** Announce `instance` of `unit` on `client` and call `onClash` (once per other instance) when another announces itself live. */
export async function watchInstance(client: mqtt.MqttClient, prefix: string, who: { unit: string; instance: string },
  onClash: (text: string) => void): Promise<void> {
  const topic = instanceTopic(prefix);
  const announcement = JSON.stringify(who);
  const answered = new Set<string>();
  // a broker that refuses the topic (an ACL) leaves the check off, never the sink down
  const properties = { userProperties: { unit: who.unit } };
  const announce = () => client.publishAsync(topic, announcement, { qos: 1, retain: true, properties }).catch(() => undefined);
  client.on('message', (t, payload, packet) => {
    if (t !== topic || packet.retain) return;
    const other = instanceOf(payload);
    if (other === undefined || other === who.instance || answered.has(other)) return;
    answered.add(other);
    onClash(`another daemon (instance ${other}) forwards as unit "${who.unit}" to ${prefix} now; give each unit its own --unit-id`);
    void announce();
  });
  await client.subscribeAsync(topic, { qos: 1 }).catch(() => undefined);
  await announce();
}

// the instance of an announcement, if it is one
function instanceOf(payload: Buffer): string | undefined {
  try {
    const value = JSON.parse(payload.toString()) as { instance?: unknown };
    return typeof value?.instance === 'string' ? value.instance : undefined;
  } catch {
    return undefined;
  }
}
