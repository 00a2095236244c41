// P519: a /v2 id that reads as a stored id of the same kind (`dispute-1001` and `dispute-l00l`). Every /v2 id is ASCII
// (SPEC.md Limits), so only P455's ASCII prototypes can make two of them alike. A warning, not a refusal: refusing
// would let whoever first writes an id's look-alike keep its rightful holder out.
//
// P570: the store keeps each row's skeleton (migration 0024) and answers the look-up from its index, after the write
// has committed: of two look-alikes written at once, through one process or two, the one committed second always
// names the first (P519's per-process map, caught up by `seq`, could pass over a row committed after a later `seq`).
// P571: a testament is known by its agent's id. P573: a GET names them too.
import type { RecordRepository } from '@proto/store';
import type { IdRule, RecordRoute } from './kinds.ts';

/** At most this many stored look-alikes are named. */
const MAX_NAMED = 3;

/** The ASCII characters that have another ASCII prototype, or are one (`rn` for `m`). */
const CONFUSABLE = /[Il1|0Omr]/;

/**
 * Kinds whose id a writer chooses: a record's own id member, an agent's (commissioning, decommissioning, testament).
 * Content ids and vitality report hashes are hex, which reads as no other hex.
 */
const COMPARED: ReadonlySet<IdRule['type']> = new Set(['field', 'agent', 'testament']);

/**
 * The warnings for the record of `route` known as `id` (its answer's `id`): one per other stored id of its kind that
 * reads the same, live or evicted (an id never changes meaning). An id with none of the confusable characters costs
 * one regex test; any other one indexed query.
 */
export async function lookAlikeWarnings(
  records: RecordRepository,
  route: RecordRoute,
  id: string,
): Promise<string[]> {
  if (!COMPARED.has(route.id.type) || !CONFUSABLE.test(id)) return [];
  const alike = await records.readingAlike(route.kind, id, MAX_NAMED);
  return alike.map(
    (other) =>
      `${route.kind} id "${id}" reads the same as the stored "${other}": check which one is meant (look-alike id; stored, not a failure)`,
  );
}
