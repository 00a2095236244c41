// Tests of the verifier's revocation list watermarks on every dialect: only ever raised, kept across a
// reopen, shared by two stores on one database (replicas). Issue 12 row k, D20.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

describe.each(dialectsUnderTest())('revocation watermarks on %s', (dialect) => {
  let target: StoreTarget;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'watermarks');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('starts empty, raises, never lowers, and keeps sources apart', async () => {
    const store = await target.open(target.fresh('raise'));
    const repo = store.revocationWatermarks;
    expect(await repo.highest('US https://a/list.json')).toBeUndefined();
    expect(await repo.raise('US https://a/list.json', 'US', 5)).toBe(5);
    expect(await repo.raise('US https://a/list.json', 'US', 3)).toBe(5);
    expect(await repo.highest('US https://a/list.json')).toBe(5);
    expect(await repo.raise('US https://a/list.json', 'US', 9)).toBe(9);
    expect(await repo.highest('FR https://b/list.json')).toBeUndefined();
    expect(await repo.raise('FR https://b/list.json', 'FR', 2)).toBe(2);
    expect(await repo.highest('US https://a/list.json')).toBe(9);
    // Beyond 2^31: list numbers are bigint on PostgreSQL.
    expect(await repo.raise('US https://a/list.json', 'US', 2 ** 40)).toBe(2 ** 40);
  });

  it('survives a reopen and is shared by two stores on the same database', async () => {
    const options = target.fresh('shared');
    const first = await target.open(options);
    await first.revocationWatermarks.raise('US src', 'US', 41);
    await first.close();
    const [a, b] = await Promise.all([target.open(options), target.open(options)]);
    expect(await b.revocationWatermarks.highest('US src')).toBe(41);
    await Promise.all([
      a.revocationWatermarks.raise('US src', 'US', 44),
      b.revocationWatermarks.raise('US src', 'US', 42),
      a.revocationWatermarks.raise('US src', 'US', 43),
    ]);
    expect(await b.revocationWatermarks.highest('US src')).toBe(44);
  });

  it('rejects nonsense arguments', async () => {
    const store = await target.open(target.fresh('args'));
    await expect(store.revocationWatermarks.raise('', 'US', 1)).rejects.toThrow(TypeError);
    await expect(store.revocationWatermarks.raise('x', 'US', -1)).rejects.toThrow(TypeError);
    await expect(store.revocationWatermarks.raise('x', 'US', 1.5)).rejects.toThrow(TypeError);
  });
});
