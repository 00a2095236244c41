// P392 on every dialect: a confirmed root anchor is still due for polls until `confirmedPolls` of them learnt nothing,
// after every due pending one; without `confirmedPolls` only pending ones are due (as before).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

const T0 = new Date('2026-01-01T00:00:00Z');
const LATER = new Date('2026-01-02T00:00:00Z');
const FOREVER = new Date('9999-12-31T00:00:00Z');

describe.each(dialectsUnderTest())('root anchors watched after confirmation on %s', (dialect) => {
  let target: StoreTarget;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'log-root-anchor-watch');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('returns pending ones first, then confirmed ones with fewer polls than asked, each until deferred enough', async () => {
    const store = await target.open(target.fresh('watch'));
    const repo = store.log;
    const root = new Uint8Array(32);
    for (const size of [3, 5]) expect(await repo.claimRootAnchor(size, root, T0, T0)).toBe(true);
    await repo.finishRootAnchor(
      3,
      { status: 'confirmed', chain: 'ethereum', txId: '0xaa', blockHeight: 9 },
      T0,
    );
    await repo.finishRootAnchor(
      5,
      { status: 'pending', chain: 'ethereum', txId: null, blockHeight: null },
      T0,
    );
    const due = async (confirmedPolls?: number) =>
      (await repo.dueRootAnchors(FOREVER, 16, confirmedPolls === undefined ? {} : { confirmedPolls })).map(
        (r) => `${r.size}:${r.status}`,
      );
    expect(await due()).toEqual(['5:pending']);
    expect(await due(2)).toEqual(['5:pending', '3:confirmed']);
    // The limit is shared, pending first.
    expect((await repo.dueRootAnchors(FOREVER, 1, { confirmedPolls: 2 })).map((r) => r.size)).toEqual([5]);
    // Two polls of the confirmed one that learnt nothing: no longer watched at 2.
    await repo.deferRootAnchorPoll(3, T0);
    expect(await due(2)).toEqual(['5:pending', '3:confirmed']);
    await repo.deferRootAnchorPoll(3, LATER);
    expect(await due(2)).toEqual(['5:pending']);
    expect(await due(3)).toEqual(['5:pending', '3:confirmed']);
    // Not due before its next poll time.
    expect((await repo.dueRootAnchors(T0, 16, { confirmedPolls: 3 })).map((r) => r.size)).toEqual([5]);
    // A reorganisation reported (back to pending) resets the count: followed as pending.
    await repo.finishRootAnchor(
      3,
      { status: 'pending', chain: 'ethereum', txId: '0xaa', blockHeight: null },
      LATER,
    );
    expect(await due()).toEqual(['3:pending', '5:pending']);
    await store.close();
  });
});
