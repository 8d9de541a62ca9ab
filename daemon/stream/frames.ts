import { EventBuffer } from 'better-sse';

// The Server-Sent Events of GET /stream, as text (docs/http-api.md "GET /stream"):
//   snapshot  one per type of the current view, no id (a fresh connection only)
//   replay    an event read back from the files after the client's cursor, id = its cursor
//   live      the marker: what came before was snapshot or replay, what follows is live;
//             id = the cursor of the last seq recorded when the client went live
//   event     an event recorded while connected that became current, id = its cursor
//   held      an event recorded while connected with make_current false, id = its cursor
//   dropped   the client read too slowly; the stream ends (resume from the last id)
//   alarm     only with ?alarms=true: an alarm as GET /alarms shows it, every alarm before the
//             `live` marker, then each time one changes; no id
// `data` is always one line of JSON: an envelope exactly as stored, or a small object.

/** The names of the stream's events. */
export type FrameName = 'snapshot' | 'replay' | 'live' | 'event' | 'held' | 'dropped' | 'alarm';

/** One event as SSE text (an id only when given). `data` must hold no newline (JSON lines hold none). */
export function frame(name: FrameName, data: string, id?: string): string {
  const buffer = new EventBuffer({ serializer: (d) => String(d) }).event(name);
  if (id !== undefined) buffer.id(id);
  return buffer.data(data).dispatch().read();
}
