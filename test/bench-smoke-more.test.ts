import { test } from 'uvu';
import { benchSmoke } from './helpers/bench-smoke.js';

// The rest of `npm run bench` on tiny sizes (see bench-smoke.test.ts): the stream fan-out, the
// console, the safety rules and alarms on the ingest path, the night report, the rollups and
// the fleet (a unit back with a backlog among units posting steadily to PostgreSQL).

test('npm run bench: the fan-out, console, rules, night report, rollup and fleet phases run to the end on tiny sizes', async () => {
  await benchSmoke(['fanout', 'console', 'rules', 'night', 'rollup-query', 'rollup-ingest', 'fleet'], [
    /^POST \/event c16 with 50 safety rules: \d+ req\/s vs \d+ without \(medians\); rounds paired: (\d+\.\d\d|NaN)x \(noise ±(\d+|NaN)%\); daemon CPU ([\d.]+|NaN) vs ([\d.]+|NaN) us\/request: ([\d.]+|NaN)x \(noise ±(\d+|NaN)%\) \(target >= 0\.9x, both ways: (met|NOT met)\)$/m,
    /^POST \/event c16 with 50 safety rules and 50 alarms: \d+ req\/s vs \d+ without \(medians\); rounds paired: (\d+\.\d\d|NaN)x \(noise ±(\d+|NaN)%\); daemon CPU ([\d.]+|NaN) vs ([\d.]+|NaN) us\/request: ([\d.]+|NaN)x \(noise ±(\d+|NaN)%\) \(no target: the stricter load\)$/m,
    /^night report over 5000 lines \(\d+ MiB, rollups built in \d+\.\d s\): cold \d+ ms, warm \d+ ms \(target under 2000 ms\)$/m,
    /^rollups: one type, one year \(5000 readings; tiers built directly at \d+ lines\/s\), step=auto width 1000 -> 1h, 5000 buckets: p50 /m,
    /^rollups: POST \/events with rollups on \d+ events\/s, off \d+ events\/s = /m,
    /^fleet: 3 units at 5 events\/s each; a unit back with 5000 events in its files: its current rows in PostgreSQL after \d+ ms \(target <= 10000 ms: (met|NOT met)\); the others' ingest \d+\.\d events\/s with it vs \d+\.\d without = \d+\.\d\dx \(target >= 0\.8x: (met|NOT met)\); its backlog drained at \d+ events\/s; load [\d.]+ [\d.]+ [\d.]+$/m,
  ], ['fanout', 'console', 'rules', 'night', 'rollupQuery', 'rollupIngest', 'fleet']);
});

test.run();
