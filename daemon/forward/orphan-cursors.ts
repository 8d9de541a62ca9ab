import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../lib/log.js';
import { loadCursor } from './cursor-file.js';
import type { LogTail } from './log-tail.js';

// Cursors of sinks no longer configured (`<name>.cursor.json` under .meridian/forward/ whose
// name no [[sink]] or [[notify]] has): a webhook whose URL changed gets a new default name, so
// a new cursor at the end of the log, and the escalations waiting behind the old cursor would
// be dropped without a word. At start each such cursor is named in the log with the
// escalations recorded after it (what a webhook of that name would still send) and how to
// carry them over (`name = "<old name>"`); one untouched for ORPHAN_DAYS is removed, with its
// next file, saying so. docs/alarms.md "When the URL changes".

// notify.ts's ESCALATION_TYPE, not imported from there: it loads got, which waits for a sink's first send (lazy-sink.ts)
const ESCALATION_TYPE = 'meridian.escalation';

/** How long a cursor of no configured sink is kept after its last write. */
export const ORPHAN_DAYS = 30;

/** What the check reads: the cursor directory, the configured names, the log and the clock. */
export interface OrphanCheck {
  stateDir: string;
  names: ReadonlySet<string>;
  tail: LogTail;
  siteHead: string;
  nowMs: number;
  logger: Logger;
  /** Where a file a cursor names (relative inside the site directory) is now. */
  places: { place(recorded: string): string };
}

/** Name each cursor of a sink no longer configured, with the escalations waiting behind it; remove those older than ORPHAN_DAYS. */
export async function checkOrphanCursors(o: OrphanCheck): Promise<void> {
  let entries: string[];
  try {
    entries = fs.readdirSync(o.stateDir);
  } catch {
    return; // no cursor was ever written
  }
  for (const entry of entries.filter((e) => e.endsWith('.cursor.json')).sort()) {
    const name = entry.slice(0, -'.cursor.json'.length);
    if (o.names.has(name)) continue;
    const file = path.join(o.stateDir, entry);
    const ageDays = (o.nowMs - fs.statSync(file).mtimeMs) / 86_400_000;
    if (ageDays > ORPHAN_DAYS) {
      fs.rmSync(`${file}.next`, { force: true });
      fs.rmSync(file, { force: true });
      o.logger.info(`sink cursor ${entry}: no sink is named ${name} and it was last written ${Math.floor(ageDays)} days ago (more than ${ORPHAN_DAYS}); removed`);
      continue;
    }
    const waiting = await escalationsAfter(file, o);
    if (waiting === undefined) continue;
    if (waiting === 0) {
      o.logger.info(`sink cursor ${entry}: no [[sink]] or [[notify]] is named ${name}; no escalation waits behind it; removed when ${ORPHAN_DAYS} days old`);
      continue;
    }
    o.logger.warn(`sink cursor ${entry}: no [[sink]] or [[notify]] is named ${name}; ${waiting} escalation(s) recorded after it were not delivered by it` +
      ` (a webhook whose URL changed: set name = "${name}" in its [[notify]] table to send them); ` +
      `removed when ${ORPHAN_DAYS} days old`);
  }
}

// the escalations recorded after the cursor in `file`, undefined when it cannot be read
async function escalationsAfter(file: string, o: OrphanCheck): Promise<number | undefined> {
  const cursor = loadCursor(file);
  if (cursor === undefined || cursor instanceof Error) return undefined;
  let count = 0;
  for (const [stream, start] of Object.entries(cursor.streams)) {
    let pos = { ...start, file: o.places.place(start.file) };
    for (;;) {
      const read = await o.tail.read(stream, pos, { records: 1000, bytes: 4 * 1024 * 1024 }, o.siteHead);
      count += read.records.filter((r) => r.type === ESCALATION_TYPE).length;
      if (read.atEnd || read.records.length === 0) break;
      pos = read.position;
    }
  }
  return count;
}
