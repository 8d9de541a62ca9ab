// What the benchmark sends and replays: ~300-byte weather events over 20 types, and
// envelope lines for a generated history.

/** The number of event types the POST rounds cycle through. */
export const POST_TYPES = 20;

/** The request body of the i-th weather event (types cycle over `types`), about 300 bytes. */
export function weatherEvent(i, types = POST_TYPES) {
  return {
    type: `weather-${String(i % types).padStart(2, '0')}`,
    data: {
      temperature_c: 8.25 + (i % 17) / 10, humidity_pct: 61.4, dew_point_c: 1.07, pressure_hpa: 1013.2,
      wind_speed_ms: 4.6, wind_gust_ms: 7.9, wind_dir_deg: 237, sky_temp_c: -31.5, cloud_cover_pct: 12,
      rain: false, sky_quality_mpsas: 21.3, station: 'mast-north',
    },
    meta: { source: 'aag-cloudwatcher', host: 'dome-ctl-1' },
  };
}

/** The `POST /event` bodies of one load round, as JSON strings. */
export function eventBodies(types = POST_TYPES) {
  return Array.from({ length: types }, (_, i) => JSON.stringify(weatherEvent(i, types)));
}

/** The envelope line (with newline) of history seq `seq` at `epochMs`. */
export function historyLine(seq, epochMs) {
  const e = weatherEvent(seq);
  return `${JSON.stringify({ seq, ts: new Date(epochMs).toISOString(), type: e.type, data: e.data, meta: e.meta })}\n`;
}

/** One NDJSON batch of `count` weather events (the body of POST /events). */
export function eventBatch(count, from = 0) {
  return Array.from({ length: count }, (_, i) => JSON.stringify(weatherEvent(from + i))).join('\n') + '\n';
}

/** The same events as InfluxDB line protocol, one point per event (the body of POST /write). */
export function lineProtocolBatch(count, from = 0, epochMs = Date.UTC(2026, 2, 17, 20)) {
  const lines = [];
  for (let i = 0; i < count; i++) {
    const { type, data, meta } = weatherEvent(from + i);
    const fields = Object.entries(data).map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : typeof v === 'boolean' ? v : v}`).join(',');
    lines.push(`weather,type=${type},source=${meta.source},host=${meta.host} ${fields} ${epochMs + from + i}`);
  }
  return `${lines.join('\n')}\n`;
}
