import fs from 'node:fs';
import path from 'node:path';

// No correctness traded for speed: after each load round the site files are read (only the
// bytes added since the last check) and must hold whole envelope lines, seq contiguous in
// file order, at least as many lines as 2xx answers were counted and at most that plus the
// requests that were in flight when the load stopped; the daemon's answers must match the files.

const SITE_FILE = /^site_\d{8}\.ndjson$/;
const KEYS = 'seq,ts,type,data,meta';

/** Follows the site files of one daemon and checks what was added. */
export class SiteFiles {
  constructor(siteDir) {
    this.siteDir = siteDir;
    this.offsets = new Map();
    this.lines = 0;
    this.lastSeq = 0;
    /** The last line of every type, as stored. */
    this.latest = new Map();
  }

  /** Read what was added since the last call (the posted lines); throws on a torn line, a bad envelope or a seq gap. */
  advance() {
    const names = fs.readdirSync(this.siteDir).filter((n) => SITE_FILE.test(n)).sort();
    let added = 0;
    for (const name of names) {
      const file = path.join(this.siteDir, name);
      const from = this.offsets.get(file) ?? 0;
      const size = fs.statSync(file).size;
      if (size === from) continue;
      const fd = fs.openSync(file, 'r');
      const buf = Buffer.allocUnsafe(size - from);
      fs.readSync(fd, buf, 0, buf.length, from);
      fs.closeSync(fd);
      if (buf[buf.length - 1] !== 10) throw new Error(`${file}: does not end with a whole line`);
      const text = buf.toString('utf8');
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        const line = text.slice(start, nl);
        start = nl + 1;
        const env = JSON.parse(line);
        if (Object.keys(env).join(',') !== KEYS) throw new Error(`${file}: line with keys ${Object.keys(env)}`);
        if (env.seq !== this.lastSeq + 1) throw new Error(`${file}: seq ${env.seq} follows ${this.lastSeq}`);
        this.lastSeq = env.seq;
        // a stale/fresh turn by a learned limit is recorded but never made current: not in the view
        if (env.data?.max_age_from !== 'learned') this.latest.set(env.type, line);
        // the daemon's own events (meridian.stale / meridian.fresh: a bench type turns stale by
        // its learned limit while the load pauses) were never posted: not counted as answers
        if (!env.type.startsWith('meridian.')) added++;
      }
      this.offsets.set(file, size);
    }
    this.lines += added;
    return added;
  }
}

/**
 * Check one POST round: `added` lines appeared for `ok` 2xx answers with `inFlight` requests
 * possibly cut off at the end; every answer of GET /current/<type> equals the type's last line.
 */
export async function checkRound(files, ok, inFlight, fetchType) {
  // Requests the load generator left in flight are still being recorded: read the answers,
  // then the files again, until no line arrived in between (the daemon writes a line before
  // it shows it in the view, so a settled pair must agree).
  let added = files.advance();
  let answers = new Map();
  for (let pass = 0; pass < 20; pass++) {
    answers = new Map();
    for (const type of files.latest.keys()) answers.set(type, await fetchType(type));
    const more = files.advance();
    added += more;
    if (more === 0) break;
  }
  const problems = [];
  if (added < ok) problems.push(`${ok} events acknowledged but only ${added} lines written`);
  if (added > ok + inFlight) problems.push(`${added} lines written for ${ok} acknowledged (+${inFlight} in flight)`);
  for (const [type, line] of files.latest) {
    if (answers.get(type) !== line) problems.push(`GET /current/${type} differs from the file's last ${type} line`);
  }
  return { added, problems };
}
