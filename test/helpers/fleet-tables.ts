import { caughtUp, QUICK, sinksOf } from './forward.js';
import { startTestDaemon } from './daemon.js';
import { postEvent } from './http.js';
import { removeDir } from './tmp.js';

// The fleet's tables made as a unit's PostgreSQL sink makes them (every migration run by the
// real sink): a daemon of unit `unit` forwards one reading to `table` and stops. Fleet tests then
// write the rows they need.

/** Make the fleet tables `table`_* in the database at `url` through a real daemon of unit `unit`. */
export async function makeFleetTables(url: string, unit: string, table = 'fleet'): Promise<void> {
  const d = await startTestDaemon({ flags: { unitId: unit }, forward: sinksOf(`[[sink]]\nname = "db"\nurl = "${url}"\ntable = "${table}"\n${QUICK}`) });
  try {
    await postEvent(d.url, { type: 'weather', data: 1 });
    await caughtUp(d.url, 'db');
  } finally {
    await d.close();
    removeDir(d.siteDir);
  }
}
