// The log's stored witness cosignatures on every dialect: a line is kept once per size and witness, and replaced only
// in place of the line the caller read as left out, so two replicas replacing at once do not undo each other (P306).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

describe.each(dialectsUnderTest())('log cosignatures on %s', (dialect) => {
  let target: StoreTarget;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'log-cosignatures');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('keeps the first line of a witness for a size, and replaces only the line named as left out', async () => {
    const store = await target.open(target.fresh('replace'));
    const repo = store.logCosignatures;
    expect(await repo.save(7, 'w+00000001', '— w left-out\n')).toBe(true);
    expect(await repo.save(7, 'w+00000001', '— w second\n')).toBe(false);
    // Another line than the one stored is not replaced: a replica got there first.
    expect(await repo.replace(7, 'w+00000001', '— w not-stored\n', '— w other\n')).toBe(false);
    expect(await repo.replace(7, 'w+00000001', '— w left-out\n', '— w fresh\n')).toBe(true);
    expect(await repo.replace(7, 'w+00000001', '— w left-out\n', '— w again\n')).toBe(false);
    expect((await repo.forSize(7)).map((row) => row.line)).toEqual(['— w fresh\n']);
    // No row: nothing to replace, nothing inserted.
    expect(await repo.replace(8, 'w+00000001', '— w left-out\n', '— w fresh\n')).toBe(false);
    expect(await repo.forSize(8)).toEqual([]);
    expect(await repo.lastCosignedSize('w+00000001')).toBe(7);
    await store.close();
  });
});
