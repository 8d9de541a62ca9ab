import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { freePort, withTestDaemon } from './helpers/daemon.js';
import { withSilentListener } from './helpers/listener.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// `telemetry import` when a batch gets no answer (it may be recorded: the daemon can die after
// the batch is written and before it answers), and a --start-line past the file's end.

/** A file of `count` event lines (the last without LF when `open`), in a fresh directory. */
function eventFile(count: number, open = false): { dir: string; file: string } {
  const dir = tempDir();
  const file = path.join(dir, 'events.ndjson');
  const lines = Array.from({ length: count }, (_, i) => `{"type":"imp","data":${i + 1}}`);
  fs.writeFileSync(file, lines.join('\n') + (open || count === 0 ? '' : '\n'));
  return { dir, file };
}

test('a batch that got no answer: the import names it, says it may be recorded and how to go on either way (exit 3)', async () => {
  const { dir, file } = eventFile(3);
  try {
    // a connection broken once the request arrived: curl's "Empty reply from server"
    await withSilentListener(async ({ port }) => {
      const run = await cli(['import', file, '--batch-size', '2', '--host', '127.0.0.1', '--port', String(port)]);
      const go = (line: number) => `telemetry import ${file} --start-line ${line}`;
      assert.equal([run.code, run.stdout, run.stderr], [3, '',
        `telemetry: the batch of lines 1-2 got no answer: it may be recorded (whole) or not at all; look for the event of line 2 ("telemetry history TYPE") and go on with: ${go(3)} if it is there, else ${go(1)}\n`
        + `telemetry: no telemetry daemon at 127.0.0.1:${port} (connection reset)\n`]);
    }, (socket) => socket.once('data', () => socket.destroy()));
    // nothing listens: no batch reached a daemon, so none is named
    const port = await freePort();
    const refused = await cli(['import', file, '--host', '127.0.0.1', '--port', String(port)]);
    assert.equal([refused.code, refused.stdout, refused.stderr], [3, '', `telemetry: no telemetry daemon at 127.0.0.1:${port} (connection refused)\n`]);
  } finally {
    removeDir(dir);
  }
});

test('--start-line past the end of the file: a usage mistake naming its lines; right after the last line: nothing to import, said', async () => {
  await withTestDaemon({}, async (d) => {
    const at = ['--host', '127.0.0.1', '--port', String(d.port)];
    // [name, lines, last line without LF, --start-line, exit code, stdout, stderr (FILE for the path)]
    const rows: Array<[string, number, boolean, string, number, string, string]> = [
      ['far past the end', 11, false, '999', 2, '', 'telemetry: --start-line 999 is past the end of FILE, which has only 11 line(s) (see "telemetry import --help")\n'],
      ['two past the end', 11, false, '13', 2, '', 'telemetry: --start-line 13 is past the end of FILE, which has only 11 line(s) (see "telemetry import --help")\n'],
      ['right after the last line', 11, false, '12', 0, 'imported 0 event(s) from FILE in 0 request(s)\n', 'telemetry: FILE has 11 line(s): nothing after line 11 to import\n'],
      ['after a last line without LF', 11, true, '12', 0, 'imported 0 event(s) from FILE in 0 request(s)\n', 'telemetry: FILE has 11 line(s): nothing after line 11 to import\n'],
      ['past a last line without LF', 11, true, '13', 2, '', 'telemetry: --start-line 13 is past the end of FILE, which has only 11 line(s) (see "telemetry import --help")\n'],
      ['the last line', 11, false, '11', 0, 'imported 1 event(s) from FILE in 1 request(s)\n', ''],
      ['an empty file, from line 2', 0, false, '2', 2, '', 'telemetry: --start-line 2 is past the end of FILE, which has only 0 line(s) (see "telemetry import --help")\n'],
    ];
    for (const [name, count, open, start, code, stdout, stderr] of rows) {
      const { dir, file } = eventFile(count, open);
      try {
        const run = await cli(['import', file, '--start-line', start, ...at]);
        assert.equal([run.code, run.stdout, run.stderr], [code, stdout.replace('FILE', file), stderr.replace('FILE', file)], name);
      } finally {
        removeDir(dir);
      }
    }
  });
});

test.run();
