// P519: a /v2 id that reads as a stored id of the same kind (`dispute-1001` and `dispute-l00l`). Every /v2 id is ASCII
// (SPEC.md Limits), so only P455's ASCII prototypes can make two of them alike. A warning on the write's answer, not a
// refusal: refusing would let whoever first writes an id's look-alike keep its rightful holder out.
//
// Cost: no column or index holds a skeleton (a migration), and a scan of a kind's rows per write blocked the event
// loop for tens of milliseconds on SQLite at the default 10,000 entries. So each process keeps, per kind asked about,
// its ids by skeleton, read once and then caught up from the store's insertion order (`idsAfter`, the `(kind, seq)`
// index): a write pays one indexed query that finds the few ids stored since, and one map look-up. Ids retention
// evicted stay named (an id never changes meaning); the map is read anew once it holds twice the kind's live entries.
import { skeletonOf } from '@proto/core';
import type { Store } from '@proto/store';
import type { RecordRoute } from './kinds.ts';

/** At most this many stored look-alikes are named. */
const MAX_NAMED = 3;
/** Ids read from the store per query while catching up. */
const PAGE = 1000;

/** The ASCII characters that have another ASCII prototype, or are one (`rn` for `m`). */
const CONFUSABLE = /[Il1|0Omr]/;

interface KindIndex {
  seq: number;
  size: number;
  readonly bySkeleton: Map<string, string[]>;
}

export interface StoredIdIndex {
  /**
   * The warnings for a record just stored under `id`: one per stored id of its kind that reads the same. Only ids a
   * writer chooses (a record's own id member, an agent's): content ids and report hashes are hex, which reads as no
   * other hex. An id with none of the confusable characters costs one regex test and the catching up.
   */
  readAlike(route: RecordRoute, id: string): Promise<string[]>;
}

export function createStoredIdIndex(store: Store): StoredIdIndex {
  const kinds = new Map<string, KindIndex>();
  // One catch-up per kind at a time: two would add the same ids twice.
  const pending = new Map<string, Promise<KindIndex>>();

  async function catchUp(kind: string): Promise<KindIndex> {
    let index = kinds.get(kind) ?? { seq: 0, size: 0, bySkeleton: new Map() };
    for (;;) {
      const rows = await store.records.idsAfter(kind, index.seq, PAGE);
      for (const { id, seq } of rows) {
        const skeleton = skeletonOf(id);
        const same = index.bySkeleton.get(skeleton);
        if (same === undefined) index.bySkeleton.set(skeleton, [id]);
        else if (!same.includes(id)) same.push(id);
        index.size += 1;
        index.seq = seq;
      }
      if (rows.length < PAGE) break;
    }
    kinds.set(kind, index);
    if (index.size > 2 * (await store.records.count(kind)) + PAGE) {
      // Mostly evicted ids: read the live ones anew.
      kinds.delete(kind);
      index = await catchUp(kind);
    }
    return index;
  }

  function caughtUp(kind: string): Promise<KindIndex> {
    const running = pending.get(kind);
    if (running !== undefined) return running.then(() => caughtUp(kind));
    const next = catchUp(kind).finally(() => pending.delete(kind));
    pending.set(kind, next);
    return next;
  }

  return {
    async readAlike(route, id) {
      if (route.id.type !== 'field' && route.id.type !== 'agent') return [];
      const index = await caughtUp(route.kind);
      if (!CONFUSABLE.test(id)) return [];
      const alike = (index.bySkeleton.get(skeletonOf(id)) ?? []).filter((other) => other !== id);
      return alike
        .slice(0, MAX_NAMED)
        .map(
          (other) =>
            `${route.kind} id "${id}" reads the same as the stored "${other}": check which one is meant (look-alike id; stored, not a failure)`,
        );
    },
  };
}
