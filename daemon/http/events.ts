import { MeridianError } from '../../lib/errors.js';
import type { BatchRecorded, TelemetryStore } from '../storage/store.js';
import { parseBatch, type BatchFailure } from './batch.js';
import { readBatchBody, readBodyText, type BatchText, type NO_BODY } from './body.js';
import { flagParam, readQuery, type QueryPolicy } from './query.js';
import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';
import { parseEventBody } from './validate.js';

// Recording events: POST /event, and batches: POST /events. POST /event takes no query
// parameter and, like every path that takes none, never reads its query (docs/http-api.md).

/** POST /events takes `partial`; any other is ignored, as it always was (docs/http-api.md). */
const BATCH_POLICY: QueryPolicy = { known: ['partial'], unknown: 'ignore' };
/** `partial` keeps the spellings it always took: a bare `?partial` and `1` mean true, `0` false. */
const PARTIAL_SPELLINGS: Readonly<Record<string, boolean>> = { 'true': true, '1': true, '': true, 'false': false, '0': false };

/** Handlers of POST /event (validate, record, answer the envelope as stored) and POST /events. */
export function eventHandlers({ store, config, logger }: AppDeps): Record<'post' | 'batch', Handler> {
  return {
    batch: async (req, res) => {
      const partial = flagParam(readQuery(req.url ?? '', BATCH_POLICY), 'partial', PARTIAL_SPELLINGS) ?? false;
      const { recorded: pending, failed } = recordBatch(store, await readBatchBody(req, config.maxBody), partial);
      const recorded = await pending;
      const summary = batchSummary(recorded);
      if (config.verbose) {
        logger.debug(`batch of ${recorded.recorded} event(s) target=${recorded.target} file=${recorded.file} `
          + `seq=${summary.first_seq}..${summary.last_seq}${failed ? ` invalid=${failed.failures.length}` : ''}`);
      }
      if (failed) throw partlyRecorded(failed, summary);
      sendJson(res, 200, JSON.stringify(summary));
    },
    post: async (req, res) => {
      const event = parseEventBody(await readBodyText(req, config.maxBody));
      const recorded = await store.append(event);
      if (config.verbose) {
        const { reading } = recorded;
        logger.debug(`event type=${JSON.stringify(reading.type)} target=${recorded.target} ` +
          `${event.storePermanently ? `file=${recorded.file}` : 'ephemeral (no line written)'} ` +
          `seq=${reading.seq} run=${recorded.runId ?? '-'}${event.makeCurrent ? '' : ' make_current=false'}`);
      }
      sendJson(res, 200, recorded.reading.json);
    },
  };
}

/** The invalid events of a partial batch, and the index of each valid one (kept for the answer). */
interface PartialFailures {
  total: number;
  failures: BatchFailure[];
  indexes: number[];
}

/**
 * Validate a batch and hand its valid events to the store (which writes them now). Returns
 * the pending record and, for a partial batch with invalid events, what its answer lists:
 * the events themselves are not held while the record waits for the disk.
 */
function recordBatch(store: TelemetryStore, body: BatchText | typeof NO_BODY, partial: boolean): { recorded: Promise<BatchRecorded>; failed: PartialFailures | undefined } {
  const { total, events, failures } = parseBatch(body);
  if (failures.length > 0 && (!partial || events.length === 0)) {
    throw new MeridianError('INVALID_BATCH',
      `${failures.length} of ${total} event(s) are invalid; nothing was recorded.`, { fields: { failures } });
  }
  const failed = failures.length > 0 ? { total, failures, indexes: events.map((e) => e.index) } : undefined;
  return { recorded: store.appendBatch(events.map((e) => e.event)), failed };
}

/** What a recorded batch answers: how many, their seq range, and the run they went to. */
function batchSummary(recorded: BatchRecorded) {
  return { recorded: recorded.recorded, first_seq: recorded.firstSeq, last_seq: recorded.lastSeq, run_id: recorded.runId ?? null };
}

/** The answer of a partial batch that had invalid events: never a 2xx, so no client takes it for success. */
function partlyRecorded({ total, failures, indexes }: PartialFailures, summary: ReturnType<typeof batchSummary>): MeridianError {
  return new MeridianError('BATCH_PARTLY_RECORDED',
    `${summary.recorded} of ${total} event(s) were recorded; the ${failures.length} invalid one(s) listed in failures were not.`,
    { fields: { ...summary, recorded_indexes: indexes, failures } });
}
