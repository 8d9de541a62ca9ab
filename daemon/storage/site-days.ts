import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { nextDayBoundary, siteDayKey } from '../../lib/day-key.js';

// Which site day file an instant belongs to, with the noon boundaries cached.

const SITE_FILE = /^site_(\d{8})\.ndjson(\.gz)?$/;

/** The name of the site file of a day key. */
export function siteFileName(dayKey: string): string {
  return `site_${dayKey}.ndjson`;
}

/** Whether a name is that of a site day file (`site_<YYYYMMDD>.ndjson`): names runs may not take. */
export function isSiteFileName(name: string): boolean {
  return SITE_FILE.test(name);
}

/**
 * The site day files of a directory, oldest first (a directory of such a name is no site
 * file), each as it is stored: `site_X.ndjson`, or `site_X.ndjson.gz` once compressed (the
 * plain one when both are there: a compression was interrupted after its rename, and the
 * plain file is the one still whole by definition).
 */
export function listSiteFiles(siteDir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(siteDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const days = entries.filter((e) => !e.isDirectory() && SITE_FILE.test(e.name)).map((e) => e.name);
  const plain = new Set(days.filter((n) => !n.endsWith('.gz')));
  return days.filter((n) => !n.endsWith('.gz') || !plain.has(n.slice(0, -3))).sort().map((n) => path.join(siteDir, n));
}

/** Maps instants to site day files; recomputes the key only when an instant leaves the cached day. */
export class SiteDays {
  private readonly siteDir: string;
  private readonly zone: string;
  private startMs = 0;
  private endMs = -1;
  private file = '';

  constructor(siteDir: string, zone: string) {
    this.siteDir = siteDir;
    this.zone = zone;
  }

  /** The absolute path of the site file that an event at `epochMs` belongs in. */
  fileAt(epochMs: number): string {
    if (epochMs < this.startMs || epochMs >= this.endMs) {
      const dt = DateTime.fromMillis(epochMs, { zone: this.zone });
      this.endMs = nextDayBoundary(dt);
      this.startMs = DateTime.fromMillis(this.endMs, { zone: this.zone }).minus({ days: 1 }).toMillis();
      this.file = path.join(this.siteDir, siteFileName(siteDayKey(dt)));
    }
    return this.file;
  }
}
