import path from 'node:path';
import { DateTime } from 'luxon';
import { nextDayBoundary, siteDayKey } from '../../lib/day-key.js';
import { siteFileName } from '../ndjson/names.js';

// Which site day file an instant belongs to, with the noon boundaries cached (the names
// themselves: daemon/ndjson/names.ts).

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
