import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, idRange, idsOf, QUICK, sinkStatus, sinksOf, startPeer, waitFor } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Day files moved away while the daemon is stopped: a sink that had delivered everything in
// them is not `skipped` (nothing was passed over); one that had not names what it passed over.

const SINK = (url: string) => `[[sink]]\nname = "peer"\nurl = "${url}"\n${QUICK}`;

test('day files moved away while stopped: skipped only when the sink had not delivered all of them', async () => {
  // [name, the seq the cursor is moved back to (undefined: as the sink left it), skipped, delivered after the restart]
  const rows: Array<[string, number | undefined, string[], string[]]> = [
    ['caught up', undefined, [], idRange('site', 5, 5)],
    ['behind by two events', 2, ['after site:2'], idRange('site', 5, 5)],
  ];
  for (const [name, backTo, skipped, after] of rows) {
    const peer = await startPeer();
    const siteDir = tempDir();
    const away = tempDir();
    try {
      const first = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)) });
      for (let i = 1; i <= 4; i++) await postEvent(first.url, { type: 'a', data: i });
      await caughtUp(first.url, 'peer');
      await first.close();
      const days = fs.readdirSync(siteDir).filter((f) => f.startsWith('site_'));
      assert.is(days.length, 1, name);
      const day = path.join(siteDir, days[0]!);
      const cursorFile = path.join(siteDir, '.meridian', 'forward', 'peer.cursor.json');
      if (backTo !== undefined) {
        // the cursor as a sink that had delivered only up to seq `backTo` leaves it
        const lines = fs.readFileSync(day, 'utf8').split('\n');
        const offset = Buffer.byteLength(lines.slice(0, backTo).join('\n') + '\n');
        const cursor = JSON.parse(fs.readFileSync(cursorFile, 'utf8'));
        cursor.streams.site = { ...cursor.streams.site, offset, seq: backTo };
        cursor.generation = 1e6;
        fs.writeFileSync(cursorFile, JSON.stringify(cursor));
      }
      fs.renameSync(day, path.join(away, days[0]!));
      peer.records.length = 0;
      const second = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)) });
      try {
        assert.is((await postEvent(second.url, { type: 'a', data: 5 })).json.seq, 5, `${name}: the seq goes on`);
        const status = await waitFor('the new event', async () => {
          const s = await sinkStatus(second.url, 'peer');
          return s.lag_events === 0 && s.delivered === 1 ? s : undefined;
        });
        assert.equal(idsOf(peer.records), after, name);
        const expected = skipped.map((s) => `${day} is gone: the site events ${s} in it were not forwarded`);
        assert.equal({ state: status.state, skipped: status.skipped }, { state: skipped.length > 0 ? 'skipped' : 'ok', skipped: expected }, name);
      } finally {
        await second.close();
      }
    } finally {
      await peer.down();
      removeDir(siteDir);
      removeDir(away);
    }
  }
});

test.run();
