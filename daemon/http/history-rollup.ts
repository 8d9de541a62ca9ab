import { MeridianError } from '../../lib/errors.js';
import { answerText } from '../rollup/answer.js';
import { isTier, TIER_MS, TIERS, type TierName } from '../rollup/tiers.js';
import { countParam } from './history-query.js';
import { invalid, single, type Query } from './query.js';
import { sendJson } from './respond.js';
import { rollupsOn } from './rollups.js';
import type { ServerResponse } from 'node:http';
import type { Rollups } from '../rollup/rollups.js';

// GET /history with `step`: a type's rollup buckets instead of its events (docs/http-api.md,
// docs/rollups.md). `step=auto` picks the coarsest tier that gives at least `width` buckets.

const DEFAULT_WIDTH = 1000;
const MAX_WIDTH = 10_000;
/** The most buckets an answer may span (an explicit step over a longer span is refused). */
export const MAX_BUCKETS = 150_000;
const FIELD = /^data(?:\.[^.]+)*$/;
const COARSEST_FIRST: readonly TierName[] = [...TIERS].reverse();

/** The parameters of a rollup query, read from /history's (the times already read). */
export interface RollupQuery {
  types: ReadonlySet<string> | undefined;
  from: string | undefined;
  to: string | undefined;
  now: number;
}

/** Answer a /history query that has `step`. */
export async function sendRollup(res: ServerResponse, query: Query, kept: Rollups | undefined, asked: RollupQuery): Promise<void> {
  const rollups = rollupsOn(kept);
  for (const name of ['run', 'cursor', 'limit']) {
    if (query.has(name)) invalid(`${name} is not taken with step: a rollup answers one type's buckets over from..to.`);
  }
  const type = oneType(asked.types);
  const step = single(query, 'step')!;
  if (step !== 'auto' && !isTier(step)) invalid(`step must be auto, 1m, 15m, 1h or night; got ${JSON.stringify(step)}.`);
  if (step !== 'auto' && query.has('width')) invalid('width is taken only with step=auto.');
  const width = countParam(query, 'width', DEFAULT_WIDTH, MAX_WIDTH);
  const fields = fieldsParam(query);
  const to = asked.to === undefined ? asked.now : Date.parse(asked.to);
  const from = asked.from === undefined ? Math.min(rollups.firstOf(type) ?? to, to) : Date.parse(asked.from);
  const tier = step === 'auto' ? autoTier(from, to, width) : step;
  const count = Math.ceil((to - from) / TIER_MS[tier]);
  if (count > MAX_BUCKETS) {
    invalid(`step ${tier} over ${asked.from ?? 'the first reading'}..${asked.to ?? 'now'} spans ${count} buckets, more than ${MAX_BUCKETS}; use a coarser step or a shorter span.`);
  }
  const buckets = await rollups.buckets(type, tier, from, to, asked.now);
  sendJson(res, 200, answerText({ type, step: tier, from, to, fields, buckets }));
}

/** The coarsest tier giving at least `width` buckets over [from, to); the finest when none does. */
export function autoTier(from: number, to: number, width: number): TierName {
  return COARSEST_FIRST.find((tier) => (to - from) / TIER_MS[tier] >= width) ?? '1m';
}

function oneType(types: ReadonlySet<string> | undefined): string {
  if (types === undefined || types.size !== 1) {
    throw new MeridianError('INVALID_QUERY', 'step needs exactly one type (type=weather): a rollup is one type\'s buckets.');
  }
  return [...types][0]!;
}

function fieldsParam(query: Query): string[] | undefined {
  const text = single(query, 'fields');
  if (text === undefined) return undefined;
  const names = text.split(',');
  for (const name of names) {
    if (!FIELD.test(name)) invalid(`fields must be a comma-separated list of data fields such as data.temp,data.wind.speed; got ${JSON.stringify(name)}.`);
  }
  if (new Set(names).size !== names.length) invalid('fields names a field more than once.');
  return names;
}
