import fs from 'node:fs';
import path from 'node:path';
import { historyLine } from './payload.mjs';
import { startDaemon, NO_ROLLUPS } from './servers.mjs';

// Start-up with a long history: generated site files (valid envelopes), then the time from
// spawn to /ready answering with the snapshot present (a normal restart) and without it
// (the full-replay fallback).

/** Write `lines` envelope lines over `files` past site days; returns the total bytes. */
export function writeHistory(siteDir, lines, files = 10) {
  fs.mkdirSync(siteDir, { recursive: true });
  const perFile = Math.ceil(lines / files);
  const day0 = Date.UTC(2025, 0, 1, 13);
  let seq = 0;
  let bytes = 0;
  for (let f = 0; f < files && seq < lines; f++) {
    const dayMs = day0 + f * 86_400_000;
    const key = new Date(dayMs).toISOString().slice(0, 10).replaceAll('-', '');
    const fd = fs.openSync(path.join(siteDir, `site_${key}.ndjson`), 'w');
    const end = Math.min(lines, seq + perFile);
    while (seq < end) {
      const parts = [];
      for (let k = 0; k < 5000 && seq < end; k++) {
        seq++;
        parts.push(historyLine(seq, dayMs + seq));
      }
      const chunk = parts.join('');
      bytes += fs.writeSync(fd, chunk);
    }
    fs.closeSync(fd);
  }
  return bytes;
}

/** Time start-ups on `siteDir` (already holding a history): `reps` of each case. */
export async function timeStartups(siteDir, { reps, pin }) {
  const snapshot = path.join(siteDir, '.meridian', 'snapshot.json');
  const withSnapshot = [];
  const fullReplay = [];
  let replayPeakMiB = 0;
  // a first start writes the snapshot the restarts use
  await (await startDaemon({ siteDir, pin, args: NO_ROLLUPS })).stop();
  for (let r = 0; r < reps; r++) {
    let d = await startDaemon({ siteDir, pin, args: NO_ROLLUPS });
    withSnapshot.push(d.readyMs);
    await d.stop();
    fs.rmSync(snapshot, { force: true });
    d = await startDaemon({ siteDir, pin, args: NO_ROLLUPS });
    fullReplay.push(d.readyMs);
    replayPeakMiB = Math.max(replayPeakMiB, d.memory()?.peakMiB ?? 0);
    await d.stop();
  }
  return { withSnapshot, fullReplay, replayPeakMiB };
}
