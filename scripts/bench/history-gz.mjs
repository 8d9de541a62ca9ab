import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeSpreadHistory } from './history.mjs';
import { request, startDaemon, NO_ROLLUPS } from './servers.mjs';
import { median } from './stats.mjs';

// History and stream resume over compressed days against plain days, in the same run: the
// same generated history twice, one copy with every day compressed by the daemon's own
// compressFile (indexed gzip members), then the same queries against a daemon on each (after
// a first query built the indexes). Issue 23's target: compressed <= 2x plain per query.

const TYPE = 'weather-07';
const DAY0 = Date.UTC(2025, 0, 1, 12);
const RUNS = 40;

/** GET one path, resolve the body; fail on a non-200. */
async function get(url) {
  const res = await request(url);
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${res.body}`);
  return res.body;
}

/** Open /stream after `cursor` and resolve once its `live` marker arrived: {ms, replayed}. */
function resume(url, cursor) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.get(`${url}/stream?since=${cursor}`, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
        const at = text.indexOf('event:live');
        if (at === -1) return;
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        const replayed = Number(/"replayed":(\d+)/.exec(text.slice(at))?.[1] ?? NaN);
        req.destroy();
        resolve({ ms, replayed });
      });
    });
    req.on('error', (error) => { if (!req.destroyed) reject(error); });
  });
}

/** The median of `RUNS` timings of `fn` (after one untimed run that builds indexes). */
async function timed(fn) {
  await fn();
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(ms);
}

/** Queries of one daemon: one type over one hour, a page after a cursor, a stream resume near the end of a day. */
async function measure(url, lines) {
  const hourFrom = new Date(DAY0 + 4.5 * 86_400_000).toISOString();
  const hourTo = new Date(DAY0 + 4.5 * 86_400_000 + 3_600_000).toISOString();
  const mid = Math.floor(lines * 0.45);
  return {
    hourMs: await timed(() => get(`${url}/history?type=${TYPE}&from=${hourFrom}&to=${hourTo}`)),
    pageMs: await timed(() => get(`${url}/history?cursor=site:${mid}&limit=1000`)),
    resumeMs: await timed(() => resume(url, `site:${lines - 2000}`)),
  };
}

/** Run the comparison; returns its figures (and logs the ratios). */
export async function historyGzBench({ tmp, lines, pin, log }) {
  const { compressFile } = await import(pathToFileURL(path.resolve('dist/daemon/storage/compressed.js')).href);
  const plainDir = path.join(tmp, 'history-plain');
  const gzDir = path.join(tmp, 'history-gz');
  const { files } = writeSpreadHistory(plainDir, lines);
  fs.mkdirSync(gzDir, { recursive: true });
  // every day compressed (all are past days for the daemon's clock), so every query reads .gz
  for (const file of files) fs.copyFileSync(file, path.join(gzDir, path.basename(file)));
  const t0 = Date.now();
  for (const file of files) await compressFile(path.join(gzDir, path.basename(file)));
  log(`  history-gz: ${lines} lines over ${files.length} days; all compressed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const figures = { lines };
  for (const [name, siteDir] of [['plain', plainDir], ['gzip', gzDir]]) {
    const d = await startDaemon({ siteDir, pin, readyTimeoutMs: 1_800_000, args: NO_ROLLUPS });
    try {
      figures[name] = await measure(d.url, lines);
    } finally {
      await d.stop();
    }
  }
  const ratio = (k) => figures.gzip[k] / figures.plain[k];
  figures.ratios = { hour: ratio('hourMs'), page: ratio('pageMs'), resume: ratio('resumeMs') };
  for (const [k, label] of [['hourMs', 'one type over one hour'], ['pageMs', 'a page of 1000 after a cursor'], ['resumeMs', 'a stream resume of 2000']]) {
    log(`  history-gz: ${label}: plain ${figures.plain[k].toFixed(2)} ms, gzip ${figures.gzip[k].toFixed(2)} ms (${ratio(k).toFixed(2)}x; target <= 2x)`);
  }
  fs.rmSync(plainDir, { recursive: true, force: true });
  fs.rmSync(gzDir, { recursive: true, force: true });
  return figures;
}
