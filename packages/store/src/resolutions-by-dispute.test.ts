// P266: resolutions stored before P240 under a content id are re-keyed by their dispute id by migration 0018.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreTarget, dialectsUnderTest, type StoreTarget, steppingClock } from './testing.ts';

const KIND = 'arbitration_resolution';

describe.each(dialectsUnderTest())('resolutions stored before P240 on %s', (dialect) => {
  let target: StoreTarget;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'resolutions-by-dispute');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it("re-keys each dispute's first resolution by its dispute id; later ones stay under their content ids", async () => {
    const options = { ...target.fresh('old'), clock: steppingClock('2025-05-01T00:00:00.000Z') };
    const old = await target.open(options);
    // Written the old way: under content ids, two different resolutions of d-1.
    await old.records.put(KIND, 'sha256:aaa', { dispute_id: 'd-1', outcome: 'upheld' });
    await old.records.put(KIND, 'sha256:bbb', { dispute_id: 'd-1', outcome: 'dismissed' });
    await old.records.put(KIND, 'sha256:ccc', { dispute_id: 'd-2', outcome: 'upheld' });
    await old.records.put(KIND, 'd-3', { dispute_id: 'd-3', outcome: 'upheld' });
    await old.records.put(KIND, 'sha256:ddd', { dispute_id: 'd-3', outcome: 'dismissed' });
    await old.records.put(KIND, 'sha256:eee', { no_dispute: true });
    // As a store before this migration: forget that it ran.
    await old.db.deleteFrom('store_migrations').where('name', '=', '0018_resolutions_by_dispute').execute();
    await old.close();

    const store = await target.open(options);
    expect((await store.records.get(KIND, 'd-1'))?.record).toEqual({ dispute_id: 'd-1', outcome: 'upheld' });
    expect((await store.records.get(KIND, 'sha256:aaa'))?.record).toBeUndefined();
    expect((await store.records.get(KIND, 'sha256:bbb'))?.record).toEqual({
      dispute_id: 'd-1',
      outcome: 'dismissed',
    });
    expect((await store.records.get(KIND, 'd-2'))?.record).toEqual({ dispute_id: 'd-2', outcome: 'upheld' });
    // A dispute id already holding a resolution keeps it.
    expect((await store.records.get(KIND, 'd-3'))?.record).toEqual({ dispute_id: 'd-3', outcome: 'upheld' });
    expect((await store.records.get(KIND, 'sha256:ddd'))?.record).toEqual({
      dispute_id: 'd-3',
      outcome: 'dismissed',
    });
    expect((await store.records.get(KIND, 'sha256:eee'))?.record).toEqual({ no_dispute: true });
    expect(await store.records.count(KIND)).toBe(6);
  });
});
