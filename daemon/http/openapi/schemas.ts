import type { SchemaObject } from 'openapi3-ts/oas31';
import { TYPE_FORBIDDEN_CHARACTER } from '../../../lib/wire.js';

// The JSON Schemas (2020-12) of the bodies the daemon takes and answers, as
// `#/components/schemas/<name>`. Answers are closed (additionalProperties false), so a test
// that validates real answers fails when a field appears that the document does not name.

/** The envelope and answer `ts`: UTC ISO-8601 with milliseconds and a trailing Z. */
export const TS_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

/** A `$ref` to a component schema. */
export function ref(name: keyof typeof SCHEMAS): SchemaObject {
  return { $ref: `#/components/schemas/${name}` };
}

const ts: SchemaObject = { type: 'string', pattern: TS_PATTERN, examples: ['2026-03-18T00:05:48.955Z'] };
const jsonObject: SchemaObject = { type: 'object' };
// the character class of TYPE_FORBIDDEN_CHARACTER, negated: what a type may hold
const typeChars = TYPE_FORBIDDEN_CHARACTER.source.replace(/^\[/, '[^');

const runRecord: SchemaObject = {
  type: 'object',
  required: ['run_dir', 'run_id', 'meta', 'started_at'],
  properties: {
    run_dir: { type: 'string', description: 'Absolute path of the run directory.' },
    run_id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
    meta: { ...jsonObject, description: 'The meta given at the start, with `run_id` set.' },
    started_at: ts,
  },
  additionalProperties: false,
};

const batchRecorded = {
  recorded: { type: 'integer', minimum: 1, description: 'How many events were recorded.' },
  first_seq: { type: 'integer', minimum: 1, description: 'The seq of the first recorded event; the others follow in batch order.' },
  last_seq: { type: 'integer', minimum: 1 },
  run_id: { type: ['string', 'null'], description: 'The run the events went to, or null for the site file.' },
} satisfies Record<string, SchemaObject>;

const failures: SchemaObject = {
  type: 'array',
  minItems: 1,
  items: {
    type: 'object',
    required: ['index', 'code', 'detail'],
    properties: {
      index: { type: 'integer', minimum: 0, description: '0-based position of the event in the batch.' },
      line: { type: 'integer', minimum: 1, description: 'NDJSON bodies: the 1-based line.' },
      code: { type: 'string', enum: ['INVALID_BODY', 'MALFORMED_JSON'] },
      detail: { type: 'string', minLength: 1 },
    },
    additionalProperties: false,
  },
};

/** Every component schema of the document. */
export const SCHEMAS = {
  Error: {
    type: 'object',
    description: 'Every error answer. Branch on `code` (stable), never on `detail` (a sentence for a person).',
    required: ['detail', 'code'],
    properties: { detail: { type: 'string', minLength: 1 }, code: { type: 'string', pattern: '^[A-Z_]+$' } },
    additionalProperties: false,
  },
  EventType: {
    type: 'string', minLength: 1, maxLength: 256, pattern: `^${typeChars}+$`,
    description: 'Non-empty, at most 256 characters (code points), no control characters.',
  },
  EventRequest: {
    type: 'object',
    required: ['type', 'data'],
    properties: {
      type: { $ref: '#/components/schemas/EventType' },
      data: { description: 'Any JSON value; `null` counts as given.' },
      make_current: { type: 'boolean', default: true, description: '`false`: written with a seq, the current view unchanged.' },
      store_permanently: { type: 'boolean', default: true, description: '`false`: ephemeral: a seq and the current view, no line in any file.' },
      ts: { type: 'string', description: "The reading's time, ISO-8601 with `Z` or a UTC offset; stored normalised. Default: the daemon's clock." },
      max_age_s: {
        type: ['number', 'null'], exclusiveMinimum: 0,
        description: "This reading's maximum age in seconds, overriding `--max-age` for it alone; kept as `meta.max_age_s` of the envelope (422 `INVALID_MAX_AGE` unless a positive number or null). Null: the configured age.",
      },
      meta: { ...jsonObject, default: {}, description: 'Caller metadata; during a run `run_id` is set to the active run; `max_age_s` (the event\'s, else one given here) is this reading\'s own maximum age.' },
    },
    description: 'Unknown keys are ignored. `data` and `meta` are stored and answered as spelled (numbers exactly).',
  },
  Envelope: {
    type: 'object',
    description: 'A recorded event: the very line stored in the file (keys in this order).',
    required: ['seq', 'ts', 'type', 'data', 'meta'],
    properties: {
      seq: { type: 'integer', minimum: 1 },
      ts: ts,
      type: { $ref: '#/components/schemas/EventType' },
      data: { description: 'The payload as sent.' },
      meta: jsonObject,
    },
    additionalProperties: false,
  },
  Current: {
    type: 'object',
    required: ['current'],
    properties: {
      current: { type: 'object', additionalProperties: { $ref: '#/components/schemas/Envelope' } },
      freshness: {
        type: 'object', additionalProperties: { $ref: '#/components/schemas/Freshness' },
        description: 'How fresh each type of `current` is, and the types the limits expect that have no reading; only when asked (`?freshness=true`, or a `?stale=` filter): by default the body is the original service\'s, `current` alone.',
      },
    },
    additionalProperties: false,
  },
  Freshness: {
    type: 'object', required: ['age_s', 'max_age_s', 'max_age_from', 'stale'], additionalProperties: false,
    properties: {
      age_s: { type: ['number', 'null'], minimum: 0, description: 'Seconds since the reading\'s `ts` on the daemon\'s clock (0 for a ts ahead of it); null: no reading.' },
      max_age_s: { type: ['number', 'null'], exclusiveMinimum: 0, description: 'The limit: the reading\'s own (`meta.max_age_s`, from the event\'s `max_age_s`), else the type\'s (`--max-age`), else the one learned from its cadence; null: never stale.' },
      max_age_from: {
        enum: ['rule', 'reading', 'learned', null],
        description: 'Where `max_age_s` comes from: a `--max-age` rule, the reading\'s own `max_age_s`, or learned from the type\'s cadence (5 x the median of its last 20 intervals, at least 5 s, once it was seen 5 intervals apart); null when there is no limit.',
      },
      stale: { type: 'boolean', description: 'Older than its limit, or no reading while a limit applies.' },
    },
  },
  RunStartRequest: {
    type: 'object',
    properties: {
      run_dir: { type: ['string', 'null'], minLength: 1, description: 'Absolute, or relative to the site directory (must stay inside it); `null`: not given.' },
      run_id: { type: ['string', 'null'], description: 'A safe path segment: letters, digits, `.`, `_`, `-`, 1-128 characters; `null`: not given.' },
      meta: { oneOf: [jsonObject, { type: 'null' }] },
    },
    description: 'Every field is optional (`null` means not given), and so is the body (`null` too).',
  },
  RunRecord: runRecord,
  StoppedRunRecord: {
    ...runRecord,
    required: [...runRecord.required!, 'stopped_at'],
    properties: { ...runRecord.properties, stopped_at: ts },
  },
  DamagedFiles: {
    type: 'array', minItems: 1, description: 'Recorded files that could not be read whole (what they hold besides is served); present only when there are some.',
    items: {
      type: 'object', required: ['file', 'reason'], additionalProperties: false,
      properties: { file: { type: 'string', description: 'The file as stored.' }, reason: { type: 'string', description: 'Why it could not be read whole.' } },
    },
  },
  Health: { type: 'object', required: ['ok'], properties: { ok: { const: true } }, additionalProperties: false },
  Ready: {
    type: 'object',
    required: ['ready', 'run_active', 'version'],
    properties: { ready: { const: true }, run_active: { type: 'boolean' }, version: { type: 'string' } },
    additionalProperties: false,
  },
  Status: {
    type: 'object',
    required: ['version', 'pid', 'started_at', 'address', 'site_dir', 'run_id', 'types', 'stale', 'max_age'],
    properties: {
      version: { type: 'string' },
      pid: { type: 'integer', minimum: 1 },
      started_at: ts,
      address: { type: 'string', description: '`host:port` the daemon is bound to.' },
      site_dir: { type: 'string', description: 'The site directory (absolute path) the daemon records into.' },
      run_id: { type: ['string', 'null'], description: 'The active run, or null.' },
      types: { type: 'integer', minimum: 0, description: 'How many types the current view holds.' },
      stale: { type: 'integer', minimum: 0, description: 'How many types are stale now (expected types without a reading included).' },
      max_age: {
        type: 'object', additionalProperties: { type: ['number', 'null'], exclusiveMinimum: 0 },
        description: 'The age limits (`--max-age`), most specific first: pattern (a type, or a glob with `*`) -> seconds; null: never stale.',
      },
      learned: {
        type: 'object', additionalProperties: { type: 'number', minimum: 5 },
        description: 'The limits learned from each type\'s cadence that are in force (no `--max-age` rule and no reading\'s own `max_age_s` for it), type -> seconds, sorted by type.',
      },
      recorded: {
        type: 'object', required: ['permanent', 'ephemeral'], additionalProperties: false,
        description: 'Events recorded since the daemon started: written to a file, and ephemeral.',
        properties: { permanent: { type: 'integer', minimum: 0 }, ephemeral: { type: 'integer', minimum: 0 } },
      },
      authenticated: { type: 'boolean', description: 'Whether requests need a token.' },
      warning: { type: 'string', description: 'Only when the daemon listens beyond loopback without a token.' },
      suspended_run: {
        description: 'The run that was active but could not resume at start-up (its directory is not usable), or null.',
        oneOf: [
          { type: 'null' },
          {
            type: 'object', required: ['run_id', 'run_dir', 'reason'], additionalProperties: false,
            properties: { run_id: { type: 'string' }, run_dir: { type: 'string' }, reason: { type: 'string', description: 'Why, e.g. `ENOENT`.' } },
          },
        ],
      },
      alarm_state_error: { type: 'string', description: 'Only while the alarm state file cannot be written: why (the alarms go on in memory, their events are recorded).' },
      disk_full: {
        description: 'Since when the disk is full (writes answered 503 DISK_FULL until one fits again), or null.',
        oneOf: [
          { type: 'null' },
          {
            type: 'object', required: ['since', 'file', 'code'], additionalProperties: false,
            properties: {
              since: ts, file: { type: 'string', description: 'The file the first failed write went to.' },
              code: { type: 'string', enum: ['ENOSPC', 'EDQUOT'] },
            },
          },
        ],
      },
      damaged: { $ref: '#/components/schemas/DamagedFiles' },
      alpaca: {
        type: 'object', required: ['address', 'port', 'discovery_port'], additionalProperties: false,
        description: 'Only when the config file has [alpaca]: the ASCOM Alpaca server (docs/integrations.md#ascom-alpaca).',
        properties: {
          address: { type: 'string', description: '`host:port` of the Alpaca API.' }, port: { type: 'integer', minimum: 1, maximum: 65535 },
          discovery_port: { description: 'The UDP discovery port, null when discovery is off.', oneOf: [{ type: 'null' }, { type: 'integer', minimum: 1, maximum: 65535 }] },
        },
      },
      rollups: {
        type: 'object', required: ['state', 'since', 'reason', 'last_rebuild'], additionalProperties: false,
        description: 'Only when the daemon keeps rollups: whether the tiers are whole and written, and the last rebuild with its cause (docs/rollups.md).',
        properties: {
          state: { enum: ['ok', 'rebuilding', 'unwritten', 'failed'] },
          since: { oneOf: [{ type: 'null' }, ts] },
          reason: { oneOf: [{ type: 'null' }, { type: 'string' }] },
          last_rebuild: {
            oneOf: [{ type: 'null' }, { type: 'object', required: ['at', 'reason'], additionalProperties: false, properties: { at: ts, reason: { type: 'string' } } }],
          },
        },
      },
      log_dropped: {
        type: 'object', required: ['lines', 'since', 'code'], additionalProperties: false,
        description: 'Only when log lines could not be written (stderr or the log file on a full disk, a closed pipe): they were dropped, the daemon went on.',
        properties: { lines: { type: 'integer', minimum: 1 }, since: ts, code: { type: 'string', description: 'The error code of the last failed write, e.g. `ENOSPC`, `EPIPE`.' } },
      },
      forward: {
        type: 'array', description: 'Each forwarding sink (docs/forwarding.md), in configuration order; empty without sinks.',
        items: {
          type: 'object', additionalProperties: false,
          required: ['name', 'kind', 'url', 'state', 'lag_events', 'lag_seconds', 'last_success', 'retries', 'dead_letters', 'last_error',
            'delivered', 'ephemeral_sent', 'ephemeral_dropped', 'skipped'],
          properties: {
            name: { type: 'string' },
            kind: { enum: ['mqtt', 'postgres', 'http'] },
            url: { type: 'string', description: 'The sink URL, any password replaced by `***`.' },
            state: { enum: ['ok', 'retrying', 'failing', 'skipped'], description: '`skipped`: it delivers, but passed over what it could not read (see `skipped`).' },
            lag_events: { type: 'integer', minimum: 0, description: 'Events recorded but not yet acknowledged by the sink.' },
            lag_seconds: { type: 'number', minimum: 0, description: 'Age of the oldest event not yet acknowledged.' },
            last_success: { type: ['string', 'null'], description: 'When the sink last acknowledged a batch (ts format).' },
            retries: { type: 'integer', minimum: 0 },
            dead_letters: { type: 'integer', minimum: 0, description: 'Records the peer refused for good.' },
            last_error: { type: ['string', 'null'] },
            delivered: { type: 'integer', minimum: 0, description: 'Events the sink acknowledged since the daemon started (dead letters not counted).' },
            ephemeral_sent: { type: 'integer', minimum: 0, description: 'Ephemeral events sent live and acknowledged since start.' },
            ephemeral_dropped: { type: 'integer', minimum: 0, description: 'Ephemeral events dropped since start (sink down, queue full, or their one attempt failed).' },
            skipped: { type: 'array', items: { type: 'string' }, description: 'What the sink could not read and passed over (a file gone, a damaged file, lines that are no envelopes), oldest first.' },
            clash: { type: 'string', description: 'Only once seen (an MQTT sink with `clash_check`): another daemon forwarding as this unit, one sentence with when it was last seen.' },
          },
        },
      },
    },
    additionalProperties: false,
  },
  BatchRecorded: {
    type: 'object', required: Object.keys(batchRecorded), properties: batchRecorded, additionalProperties: false,
  },
  InvalidBatch: {
    type: 'object',
    description: 'No event of the batch was recorded; each invalid one is listed.',
    required: ['detail', 'code', 'failures'],
    properties: { detail: { type: 'string' }, code: { const: 'INVALID_BATCH' }, failures },
    additionalProperties: false,
  },
  BatchPartlyRecorded: {
    type: 'object',
    description: 'partial=true: the events at recorded_indexes were recorded (seqs first_seq..last_seq in that order); those in failures were not.',
    required: ['detail', 'code', ...Object.keys(batchRecorded), 'recorded_indexes', 'failures'],
    properties: {
      detail: { type: 'string' }, code: { const: 'BATCH_PARTLY_RECORDED' }, ...batchRecorded,
      recorded_indexes: { type: 'array', items: { type: 'integer', minimum: 0 } }, failures,
    },
    additionalProperties: false,
  },
  Shutdown: {
    type: 'object', required: ['shutting_down'], properties: { shutting_down: { const: true } }, additionalProperties: false,
  },
  Safety: {
    type: 'object',
    required: ['safe', 'since', 'reasons', 'inputs', 'configured'],
    properties: {
      safe: { type: 'boolean' },
      since: { ...ts, description: 'When `safe` last changed (the daemon\'s start when it never did).' },
      reasons: { type: 'array', items: { type: 'string' }, description: 'Why unsafe, one sentence each; empty when safe.' },
      inputs: {
        type: 'object', description: 'Every type the verdict reads (required ones and those the rules name), by type.',
        additionalProperties: {
          type: 'object', required: ['age_s', 'stale', 'value'], additionalProperties: false,
          properties: {
            age_s: { type: ['number', 'null'], description: 'Seconds since its reading (null without one).' },
            stale: { type: 'boolean', description: 'Stale, or no reading.' },
            value: { description: 'The reading\'s `data` as recorded; null without a reading.' },
          },
        },
      },
      configured: { type: 'boolean', description: 'false: the daemon has no `[safety]` section (always unsafe).' },
    },
    additionalProperties: false,
  },
} satisfies Record<string, SchemaObject>;
