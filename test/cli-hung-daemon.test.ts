import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RunningCli } from './helpers/cli.js';
import { withSilentListener } from './helpers/listener.js';
import { Terminal } from './helpers/tmux.js';

// A "daemon" that accepts connections and never answers (hung, or the machine is swapping):
// quitting the console or stopping a piped --follow must not wait out the client's 5 s
// timeout on the poll in flight.

const CLIENT_TIMEOUT_MS = 5000;

test('piped --follow: SIGINT during a poll that gets no answer exits 0 at once', () => withSilentListener(async ({ port, connected }) => {
  const follow = new RunningCli(['current', '--follow', '--host', '127.0.0.1', '--port', String(port)]);
  try {
    await connected();
    const stopped = Date.now();
    follow.child.kill('SIGINT');
    assert.is(await follow.exited, 0);
    const took = Date.now() - stopped;
    assert.ok(took < CLIENT_TIMEOUT_MS - 1000, `exited ${took} ms after SIGINT`);
    assert.is(follow.out, '');
    assert.is(follow.err, '');
  } finally {
    follow.kill();
  }
}));

test('console: q during a poll that gets no answer exits 0 at once, the terminal restored', () => withSilentListener(async ({ port, connected }) => {
  const t = new Terminal();
  try {
    t.run(['current', '--follow', '--host', '127.0.0.1', '--port', String(port)], { width: 80, height: 24 });
    await t.waitFor('the console', (s) => s.startsWith(`meridian 127.0.0.1:${port}`));
    await connected();
    const quit = Date.now();
    t.keys('q');
    const { lines, exit, restored } = await t.output();
    const took = Date.now() - quit;
    assert.equal([exit, restored, lines.filter((l) => l !== '')], [0, true, []]);
    assert.ok(took < CLIENT_TIMEOUT_MS - 1000, `exited ${took} ms after q`);
  } finally {
    t.kill();
  }
}));

test.run();
