import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FsyncMode } from '../../lib/config.js';
import type { Logger } from '../../lib/log.js';
import type { Clock } from '../../lib/time.js';
import type { UnitAlarms } from '../../lib/unit-alarms.js';
import type { SinkStatus } from '../../lib/wire.js';
import { brokenBeside, GZ } from '../ndjson/names.js';
import { statePaths } from '../storage/state-files.js';
import type { TelemetryStore } from '../storage/store.js';
import type { CursorSync } from './cursor-file.js';
import { Forwarder } from './forwarder.js';
import type { LoopSampler } from './ingest-share.js';
import { lazySink } from './lazy-sink.js';
import { SiteSegments } from './site-segments.js';
import { LogTail } from './log-tail.js';
import { checkOrphanCursors } from './orphan-cursors.js';
import { ephemeralRecord } from './record.js';
import type { CurrentReading, SinkSpec } from './sink.js';
import type { CurrentSource } from './current-feed.js';
import { lineHead } from '../ndjson/head.js';
import type { AlarmAtDelivery } from './notify.js';

// Forwarding as the daemon runs it: one forwarder per configured sink, woken by the store's
// onRecorded listener, reading the backlog from the files. Ephemeral events, in no file, are
// handed over live (each sink queues a few, bounded). Nothing here runs on the write path
// but a wake-up and that hand-over: a sink that is down or slow never holds an event back.

/** How long a stop waits for a sink's batch in flight and its connection to close. */
const STOP_GRACE_MS = 2000;

/** The running forwarders. */
export interface Forwarding {
  /** Each sink's line for /status, in configuration order. */
  status(): SinkStatus[];
  /** Stop every sink (bounded: a peer that is down cannot hold shutdown up). */
  stop(): Promise<void>;
  /** Whether some sink has not yet delivered all of a data file (retention and compression leave it alone). */
  holds(file: string): boolean;
}

/** What forwarding needs from the daemon. */
export interface ForwardingDeps {
  store: TelemetryStore;
  siteDir: string;
  clock: Clock;
  logger: Logger;
  random?: () => number;
  /** The event loop's utilization (default: perf_hooks'), for the share a catching-up sink takes. */
  loopSampler?: LoopSampler;
  /** The daemon's --fsync mode, which cursor writes follow (default batch: synced at most once a second). */
  fsync?: FsyncMode;
  /** This unit's id (`--unit-id`), in every record sent. */
  unit: string;
  /** An alarm's state now (the notify sinks send it: an escalation delivered late says what became of its alarm). */
  alarmState?: (id: string) => AlarmAtDelivery | undefined;
  /** The unit's alarms summed up now (null or absent: none configured), for the fleet's units table. */
  alarms?: () => UnitAlarms | null;
}

// how a cursor is written, by --fsync mode: whole (and synced) after every batch, or whole once
// a second and in place in between (cursor-file.ts)
const CURSOR_SYNC: Record<FsyncMode, CursorSync> = {
  always: { wholeEveryMs: 0, fsync: true }, batch: { wholeEveryMs: 1000, fsync: true }, off: { wholeEveryMs: 1000, fsync: false },
};

/** Forwarding before it starts: no sink, nothing checked. */
export function idleForwarding(): Forwarding {
  return { status: () => [], stop: async () => undefined, holds: () => false };
}

/** Start a forwarder for each sink (none: nothing runs and nothing listens). */
export function startForwarding(specs: readonly SinkSpec[], deps: ForwardingDeps): Forwarding {
  const { store, siteDir } = deps;
  const segments = new SiteSegments(store.head().site);
  const tail = new LogTail(siteDir, segments);
  const stateDir = path.join(statePaths(siteDir).dir, 'forward');
  // cursors of sinks no longer configured: named with what waits behind them, in the background
  const orphans = checkOrphanCursors({
    stateDir, names: new Set(specs.map((s) => s.name)), tail, siteHead: store.head().site.file, nowMs: deps.clock.now(), logger: deps.logger, places: store.places,
  }).catch((error: unknown) => deps.logger.warn(`checking the cursors of sinks no longer configured failed: ${(error as Error).message}`));
  if (specs.length === 0) return { status: () => [], stop: () => orphans, holds: () => false };
  fs.mkdirSync(stateDir, { recursive: true });
  const current = (type: string) => store.view.get(type)?.json;
  // the stream of each type's current reading, as recorded since start (before: see currentSource)
  const streams = new Map<string, string>();
  const view = currentSource(store, streams, deps.alarms ?? (() => null));
  // this daemon's run: the fleet's units table tells two daemons with one unit id apart by it
  const unit = { id: deps.unit, instance: randomUUID() };
  let recorded = 0;
  const lineSeqs = new Map<string, number>();
  const forwarders = specs.map((spec) => new Forwarder({
    spec, sink: lazySink(spec, unit, current, deps.alarmState), tail, stateDir, cursorSync: CURSOR_SYNC[deps.fsync ?? 'batch'], places: store.places, head: () => store.head(), lineSeqs, recordedCount: () => recorded, current: view,
    loopSampler: deps.loopSampler ?? ((since) => performance.eventLoopUtilization(since)),
    clock: deps.clock, logger: deps.logger, random: deps.random ?? Math.random,
  }));
  const wantEphemeral = specs.some((s) => s.ephemeral);
  const stopListening = store.onRecorded((event) => {
    recorded++;
    if (event.makeCurrent) {
      streams.set(event.reading.type, event.stream);
      for (const f of forwarders) f.currentChanged(event.reading.type);
    }
    if (event.permanent) {
      lineSeqs.set(event.stream, event.reading.seq);
      if (event.stream === 'site') segments.recorded(event.file, event.reading.seq);
      for (const f of forwarders) f.notify(event.stream);
      return;
    }
    const record = wantEphemeral ? ephemeralRecord(event.stream, event.reading.json) : undefined;
    if (record) for (const f of forwarders) f.offerEphemeral(record);
  });
  for (const f of forwarders) f.start();
  return {
    status: () => forwarders.map((f) => f.status()),
    holds: (file) => {
      const size = storedSize(file);
      return size !== undefined && forwarders.some((f) => !f.delivered(file, size));
    },
    stop: async () => {
      stopListening();
      await orphans;
      await Promise.all(forwarders.map((f) => f.stop(STOP_GRACE_MS)));
    },
  };
}

// The current view as sinks send it. The stream of a reading recorded before this start is not
// kept anywhere: the run its meta names (the daemon sets meta.run_id in a run), else the site.
function currentSource(store: TelemetryStore, streams: ReadonlyMap<string, string>, alarms: () => UnitAlarms | null): CurrentSource {
  return {
    alarms,
    types: () => store.view.typeNames(),
    reading: (type): CurrentReading | undefined => {
      const reading = store.view.get(type);
      const head = reading && lineHead(reading.json);
      if (!reading || !head) return undefined;
      const runId = (reading.envelope.meta as { run_id?: unknown } | null | undefined)?.run_id;
      const stream = streams.get(type) ?? (typeof runId === 'string' ? runId : 'site');
      return { type, stream, seq: head.seq, ts: head.ts, line: reading.json };
    },
  };
}

// The length of a data file by its plain path; Infinity when it is stored compressed (a sink
// whose position is in it has not read it to its end: its stream moves on when it does);
// undefined when it is gone.
function storedSize(plain: string): number | undefined {
  if (brokenBeside(plain) !== undefined) return Infinity;
  try {
    return fs.statSync(plain).size;
  } catch { /* compressed, or gone */ }
  return fs.existsSync(plain + GZ) ? Infinity : undefined;
}
