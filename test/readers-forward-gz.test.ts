import fs from 'node:fs';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeMember } from '../daemon/ndjson/gzip-members.js';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, dayFile, idRange, idsOf, QUICK, sinkStatus, sinksOf, startPeer, waitFor } from './helpers/forward.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The forwarding tail over every state a compressed day can be in (issue 23, gzip item 5):
// a new sink reads a .gz whose Md fields are wrong, or that was made by hand, as it reads an
// intact one: every event once, in order, ok at lag 0.

const SINK = (url: string) => `[[sink]]\nname = "peer"\nurl = "${url}"\n${QUICK}`;

/** The plain day file's lines cut in `parts` members at line ends. */
const cut = (plain: Buffer, parts: number): Buffer[] => {
  const lines = plain.toString().split(/(?<=\n)/);
  const per = Math.ceil(lines.length / parts);
  return Array.from({ length: parts }, (_, i) => Buffer.from(lines.slice(i * per, (i + 1) * per).join('')));
};
const flip = (member: Buffer, at: number) => {
  const copy = Buffer.from(member);
  for (let i = at; i < at + 4; i++) copy[i]! ^= 0x5a;
  return copy;
};

// [name, the .gz of day 20260315 (seqs 251..500) from its plain bytes]
const ROWS: [string, (plain: Buffer) => Buffer][] = [
  ['indexed members, the middle one with a wrong Md length', (plain) => Buffer.concat(cut(plain, 5).map((p, i) => (i === 2 ? flip(encodeMember(p), 16) : encodeMember(p))))],
  ['indexed members, the middle one with a wrong Md plain length', (plain) => Buffer.concat(cut(plain, 5).map((p, i) => (i === 2 ? flip(encodeMember(p), 20) : encodeMember(p))))],
  ['members made by hand (gzip -c a >> f.gz)', (plain) => Buffer.concat(cut(plain, 3).map((p) => zlib.gzipSync(p)))],
  ['members made by hand cut inside lines (split -b, then gzip each)', (plain) => Buffer.concat([0, 1, 2].map((i) => zlib.gzipSync(plain.subarray(i * 7000, (i + 1) * 7000 + (i === 2 ? plain.length : 0)))))],
  ['indexed members, then one appended by hand', (plain) => { const [a, b] = cut(plain, 2); return Buffer.concat([encodeMember(a!), zlib.gzipSync(b!)]); }],
];

for (const [name, gz] of ROWS) {
  test(`a new sink reads a compressed day of ${name}: all 750 events delivered, in order, ok at lag 0`, async () => {
    const peer = await startPeer();
    const siteDir = tempDir();
    try {
      dayFile(siteDir, '20260314', 1, 250);
      const plain = dayFile(siteDir, '20260315', 251, 500);
      fs.writeFileSync(`${plain}.gz`, gz(fs.readFileSync(plain)));
      fs.unlinkSync(plain);
      dayFile(siteDir, '20260316', 501, 750);
      const d = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)) });
      try {
        const status = await caughtUp(d.url, 'peer');
        assert.equal(idsOf(peer.records), idRange('site', 1, 750));
        assert.equal({ state: status.state, lag: status.lag_events, delivered: status.delivered, skipped: status.skipped },
          { state: 'ok', lag: 0, delivered: 750, skipped: [] });
        assert.equal(fs.readdirSync(siteDir).filter((n) => n.startsWith('site_')), ['site_20260314.ndjson', 'site_20260315.ndjson.gz', 'site_20260316.ndjson']);
      } finally {
        await d.close();
      }
    } finally {
      await peer.down();
      removeDir(siteDir);
    }
  });
}

test('a compressed day whose last line was cut before compression: the lines before it and the next days delivered, the torn line named once', async () => {
  const peer = await startPeer();
  const siteDir = tempDir();
  try {
    const plain = dayFile(siteDir, '20260314', 1, 100);
    const bytes = fs.readFileSync(plain);
    const half = bytes.indexOf(10, bytes.length / 2) + 1;
    fs.writeFileSync(`${plain}.gz`, Buffer.concat([encodeMember(bytes.subarray(0, half)), encodeMember(bytes.subarray(half, bytes.length - 10))]));
    fs.unlinkSync(plain);
    dayFile(siteDir, '20260315', 101, 150);
    const d = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)) });
    try {
      const status = await waitFor('the sink to read the backlog', async () => {
        const s = await sinkStatus(d.url, 'peer');
        return s.lag_events === 0 ? s : undefined;
      });
      assert.equal(idsOf(peer.records), [...idRange('site', 1, 99), ...idRange('site', 101, 150)]);
      const member = encodeMember(bytes.subarray(0, half)).length;
      assert.equal([status.state, status.skipped], ['skipped', [`${plain}.gz is damaged (its member at byte ${member} ends inside a line ` +
        `(its last ${bytes.length - 10 - bytes.lastIndexOf(10, bytes.length - 11) - 1} bytes form no whole line)): the site events in it there were not forwarded`]]);
    } finally {
      await d.close();
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test.run();
