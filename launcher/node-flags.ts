// How Node runs the daemon, whichever way it is started.

/**
 * The Node flags the daemon runs with. The launcher (and so `run --detach`) passes them; the
 * executables' shebang and `npm start` spell out the same (test/node-flags.test.ts checks).
 * V8's young generation grows to 2 x 16 MiB under sustained load (8 MiB semi-spaces), and
 * its old generation to 4 times the live heap between full collections (1.5 times here):
 * with both a busy daemon peaks near 93 MiB resident at no measurable cost in throughput
 * (docs/operations.md#memory).
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--heap-growing-percent=50'];
