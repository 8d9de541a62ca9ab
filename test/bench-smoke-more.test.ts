import { test } from 'uvu';
import { benchSmoke } from './helpers/bench-smoke.js';

// The rest of `npm run bench` on tiny sizes (see bench-smoke.test.ts): the stream fan-out, the
// console, the safety rules and alarms on the ingest path, the night report and the rollups.

test('npm run bench: the fan-out, console, rules, night report and rollup phases run to the end on tiny sizes', async () => {
  await benchSmoke(['fanout', 'console', 'rules', 'night', 'rollup-query', 'rollup-ingest'], [
    /^POST \/event c16 with 50 safety rules and 50 alarms: \d+ req\/s vs \d+ without \(medians\); rounds paired: \d+\.\d\dx \(target >= 0\.9x: (met|NOT met)\)/m,
    /^night report over 5000 lines \(\d+ MiB, rollups built in \d+\.\d s\): cold \d+ ms, warm \d+ ms \(target under 2000 ms\)$/m,
    /^rollups: one type, one year \(5000 readings; tiers built directly at \d+ lines\/s\), step=auto width 1000 -> 1h, 5000 buckets: p50 /m,
    /^rollups: POST \/events with rollups on \d+ events\/s, off \d+ events\/s = /m,
  ], ['fanout', 'console', 'rules', 'night', 'rollupQuery', 'rollupIngest']);
});

test.run();
