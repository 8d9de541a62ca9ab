import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BAND_COLOURS, HTML_CHART } from '../night/night-html.js';
import { MARGIN, SERIES_COLOURS } from '../chart/svg.js';
import { cli } from './helpers/cli.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon } from './helpers/daemon.js';
import { recordNight } from './helpers/night-fixture.js';
import { decodePng, type Image } from './helpers/png.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The HTML night report opened in headless Chromium (Debian's `chromium`): the screenshot has
// the size asked for, the safety band is green, red and grey exactly where the generated
// night's verdicts and gap put them, and the weather chart's line runs across the plot area.

const WIDTH = 800;
const HEIGHT = 900;

type Rgb = [number, number, number];
const rgb = (hex: string): Rgb => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
const near = (a: Rgb, b: Rgb) => a.every((v, i) => Math.abs(v - b[i]!) <= 12);

/** The first row (top down) where `colour` runs for at least `length` pixels, and where the run starts. */
function findRun(img: Image, colour: Rgb, length: number): { x: number; y: number } | undefined {
  for (let y = 0; y < img.height; y++) {
    let run = 0;
    for (let x = 0; x < img.width; x++) {
      run = near(img.pixel(x, y), colour) ? run + 1 : 0;
      if (run >= length) return { x: x - run + 1, y };
    }
  }
  return undefined;
}

test('the HTML report renders in headless Chromium with its band and charts where they must be', () => withTestDaemon(
  { siteDir: nightDir(), clock: new ManualClock('2026-03-18T20:00:00.000Z'), env: { TZ: 'America/New_York' }, freshnessIntervalMs: 0 }, async (d) => {
    const dir = tempDir('meridian-html-');
    try {
      const page = path.join(dir, 'night.html');
      const made = await cli(['night', '20260317', '--html', page, '--port', String(d.port)]);
      assert.equal([made.code, made.stdout, made.stderr], [0, '', `telemetry: wrote ${page}\n`]);
      // one self-contained page: no script, nothing loaded from elsewhere
      assert.not.match(fs.readFileSync(page, 'utf8'), /<script|\ssrc=|\shref=|url\(/i);
      const shot = path.join(dir, 'night.png');
      await promisify(execFile)('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
        `--screenshot=${shot}`, `--window-size=${WIDTH},${HEIGHT}`, `file://${page}`], { timeout: 60_000 });
      const img = decodePng(fs.readFileSync(shot));
      assert.equal([img.width, img.height], [WIDTH, HEIGHT]);
      // the band: its left edge is the night's start (16:00Z); 1440 minutes over the plot width
      const plot = HTML_CHART.width - MARGIN.left - MARGIN.right;
      const red = findRun(img, rgb(BAND_COLOURS.unsafe), 20);
      assert.ok(red, 'the band is drawn');
      const at = (minute: number) => img.pixel(Math.round(red!.x + (minute / 1440) * plot), red!.y + 4);
      const rows: [string, number, string][] = [
        ['20:00Z daylight', 240, BAND_COLOURS.unsafe], ['01:00Z safe', 540, BAND_COLOURS.safe], ['02:15Z gap', 615, BAND_COLOURS.unknown],
        ['04:30Z rain', 750, BAND_COLOURS.unsafe], ['10:00Z safe', 1080, BAND_COLOURS.safe], ['15:55Z safe', 1435, BAND_COLOURS.safe],
      ];
      for (const [name, minute, colour] of rows) assert.ok(near(at(minute), rgb(colour)), `${name}: ${at(minute).join(',')}`);
      // the first chart (humidity, on the band's time axis): its line runs from the night's start to its last slice (15 minutes before the end)
      const blue = rgb(SERIES_COLOURS[0]!);
      const below = Array.from({ length: img.height - red!.y }, (_, i) => red!.y + i);
      const xs = below.flatMap((y) => Array.from({ length: img.width }, (_, x) => x).filter((x) => near(img.pixel(x, y), blue)));
      const end = red!.x + (plot * 95) / 96;
      assert.ok(Math.abs(Math.min(...xs) - red!.x) <= 2 && Math.abs(Math.max(...xs) - end) <= 3, `line from ${Math.min(...xs)} to ${Math.max(...xs)}`);
    } finally {
      if (process.env.KEEP_SHOT) fs.copyFileSync(path.join(dir, "night.png"), process.env.KEEP_SHOT);
      removeDir(dir);
    }
  }));


/** A site directory holding the generated night. */
function nightDir(): string {
  const dir = tempDir();
  recordNight(dir);
  return dir;
}

test.run();
