// Pruning the key directory on every dialect (P174): a binding that never authorised a write and was not proven
// again since the cut-off goes; one that authorised, one that is retired, and one proven since, stay. Pruning never
// undoes a retirement, and a write cannot be authorised by a binding pruned after its lookup.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disputeHoldsOf, kid, passport } from './key-directory-testing.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

const DAY = 86_400_000;

describe.each(dialectsUnderTest())('key directory pruning on %s', (dialect) => {
  let target: StoreTarget;
  let now = new Date('2026-01-01T00:00:00Z');
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'key-prune');
  });
  afterAll(async () => {
    await target?.cleanup();
  });
  const later = (days: number) => {
    now = new Date(now.getTime() + days * DAY);
  };

  it('prunes only what never authorised, is not retired and was not proven since the cut-off', async () => {
    const store = await target.open({ clock: () => now });
    const before = await store.keys.size();
    // Idle: one agent whose key never signs anything.
    await store.keys.applyPassport(passport('agent:idle', '2025-12-01T00:00:00Z', 'sha256:i1', [kid('a')]));
    // Used: its key authorises a write.
    await store.keys.applyPassport(passport('agent:used', '2025-12-01T00:00:00Z', 'sha256:u1', [kid('b')]));
    expect(await store.keys.markAuthorised(kid('b'), ['agent:used'])).toBe(true);
    // Retired: a newer passport drops c for d.
    await store.keys.applyPassport(passport('agent:rot', '2025-12-01T00:00:00Z', 'sha256:r1', [kid('c')]));
    await store.keys.applyPassport(
      passport('agent:rot', '2025-12-02T00:00:00Z', 'sha256:r2', [kid('d')], [], kid('c')),
    );
    // Proven again later by another bundle with the same passport.
    await store.keys.applyPassport(passport('agent:back', '2025-12-01T00:00:00Z', 'sha256:k1', [kid('e')]));
    expect(await store.keys.size()).toBe(before + 5);

    later(40);
    await store.keys.applyPassport(passport('agent:back', '2025-12-01T00:00:00Z', 'sha256:k2', [kid('e')]));
    later(1);
    // Cut-off: 30 days ago. Idle a, and rot's d (never used), go; b (used), c (retired) and e (proven) stay.
    expect(await store.keys.pruneUnused(new Date(now.getTime() - 30 * DAY), 100)).toBe(2);
    expect(await store.keys.lookup(kid('a'))).toEqual([]);
    expect(await store.keys.lookup(kid('d'))).toEqual([]);
    expect((await store.keys.lookup(kid('b'))).length).toBe(1);
    expect((await store.keys.lookup(kid('e'))).length).toBe(1);
    expect(await store.keys.size()).toBe(before + 3);
    // A write looked up before the prune cannot be authorised by the pruned binding afterwards.
    expect(await store.keys.markAuthorised(kid('a'), ['agent:idle'])).toBe(false);
    expect(await store.keys.markAuthorised(kid('b'), ['agent:used'])).toBe(true);
  });

  it('never undoes a retirement: the retired row stays, and so does the agent’s passport time', async () => {
    const store = await target.open({ clock: () => now });
    const agent = 'agent:marked';
    const first = passport(agent, '2026-01-01T00:00:00Z', 'sha256:m1', [kid('f'), kid('g')]);
    await store.keys.applyPassport(first);
    // Same time, signed by f, marking g revoked (P45: a mark retires even when not newer).
    await store.keys.applyPassport(
      passport(agent, '2026-01-01T00:00:00Z', 'sha256:m2', [kid('f')], [kid('g')], kid('f')),
    );
    expect(await store.keys.lookup(kid('g'))).toEqual([]);
    later(60);
    expect(await store.keys.pruneUnused(new Date(now.getTime() - 30 * DAY), 100)).toBeGreaterThanOrEqual(1);
    expect(await store.keys.lookup(kid('f'))).toEqual([]);
    // The first bundle again: it re-binds the pruned f (the agent's live key), but g stays retired.
    expect(await store.keys.applyPassport(first)).toMatchObject({ order: 'same', bound: 1 });
    expect(await store.keys.lookup(kid('g'))).toEqual([]);
    expect((await store.keys.lookup(kid('f'))).length).toBe(1);
    // An older passport is still older: the agent's passport time was kept with its retired row.
    const older = passport(agent, '2025-06-01T00:00:00Z', 'sha256:m0', [kid('h')], [], kid('f'));
    expect(await store.keys.applyPassport(older)).toMatchObject({ order: 'older', bound: 0 });
  });

  it('forgets an agent with no binding left whole, and prunes in batches of the limit', async () => {
    const store = await target.open({ clock: () => now });
    // What the earlier tests left idle goes first, so the counts below are this test's own.
    later(1);
    await store.keys.pruneUnused(now, 1000);
    for (const n of [1, 2, 3]) {
      await store.keys.applyPassport(
        passport(`agent:many${n}`, '2026-01-01T00:00:00Z', `sha256:n${n}`, [kid(`${n}x`)]),
      );
    }
    later(60);
    const cutoff = new Date(now.getTime() - 30 * DAY);
    expect(await store.keys.pruneUnused(cutoff, 2)).toBe(2);
    expect(await store.keys.pruneUnused(cutoff, 2)).toBe(1);
    expect(await store.keys.pruneUnused(cutoff, 2)).toBe(0);
    // No passport time remains for it: its next passport, whatever its date, is placed as the first.
    const again = passport('agent:many1', '2025-01-01T00:00:00Z', 'sha256:n9', [kid('9x')]);
    expect(await store.keys.applyPassport(again)).toMatchObject({ order: 'same', bound: 1 });
  });

  it('prunes a full batch of 1,000 in one statement (SQLite once refused it as too deep)', async () => {
    const store = await target.open({ clock: () => now });
    later(1);
    await store.keys.pruneUnused(now, 5000);
    await store.keys.bind(
      Array.from({ length: 1001 }, (_, i) => ({
        ...passport(`agent:batch${i}`, undefined, 'sha256:b', [kid('b')]).bindings[0]!,
        kid: i.toString(16).padStart(32, 'f'),
      })),
    );
    later(60);
    const cutoff = new Date(now.getTime() - 30 * DAY);
    expect(await store.keys.pruneUnused(cutoff, 1000)).toBe(1000);
    expect(await store.keys.pruneUnused(cutoff, 1000)).toBe(1);
  });

  it('keeps every binding of an id a stored record names, the keys it binds later included (P185)', async () => {
    const store = await target.open({ clock: () => now });
    later(1);
    await store.keys.pruneUnused(now, 1000);
    await store.keys.applyPassport(passport('agent:held', '2026-01-01T00:00:00Z', 'sha256:h1', [kid('H')]));
    await store.keys.applyPassport(passport('agent:loose', '2026-01-01T00:00:00Z', 'sha256:o1', [kid('O')]));
    // An operator's write names the agent: no key of its authorised anything.
    await store.keys.holdSubjects(['agent:held', 'human:held']);
    await store.keys.holdSubjects(['agent:held']);
    // It rotates later; the successor never signs a record either.
    later(1);
    await store.keys.applyPassport(
      passport('agent:held', '2026-01-02T00:00:00Z', 'sha256:h2', [kid('I')], [], kid('H')),
    );
    later(60);
    expect(await store.keys.pruneUnused(new Date(now.getTime() - 30 * DAY), 100)).toBe(1);
    expect(await store.keys.lookup(kid('O'))).toEqual([]);
    expect((await store.keys.lookup(kid('I'))).map((r) => r.subject)).toEqual(['agent:held']);
    // Continuity holds: a stranger's passport for the held id binds nothing.
    const stranger = passport('agent:held', '2026-03-01T00:00:00Z', 'sha256:x1', [kid('X')], [], kid('X'));
    expect(await store.keys.applyPassport(stranger)).toMatchObject({ order: 'foreign', bound: 0 });
  });

  it("keeps a dispute's respondent until the dispute's holds are released, and bounds a filer's disputes (P566)", async () => {
    const store = await target.open({ clock: () => now });
    later(1);
    await store.keys.pruneUnused(now, 1000);
    await store.keys.applyPassport(passport('agent:resp', '2026-01-01T00:00:00Z', 'sha256:r1', [kid('R')]));
    expect(await store.keys.holdForDispute('dispute:a', 'agent:filer', ['agent:resp'], { limit: 2 })).toBe(
      true,
    );
    expect(await store.keys.holdForDispute('dispute:a', 'agent:filer', ['agent:resp'], { limit: 2 })).toBe(
      true,
    );
    expect(await store.keys.holdForDispute('dispute:b', 'agent:filer', ['agent:other'], { limit: 2 })).toBe(
      true,
    );
    // A third dispute of the same filer is refused, nothing held; its own dispute again still holds; no limit: held.
    expect(await store.keys.holdForDispute('dispute:c', 'agent:filer', ['agent:third'], { limit: 2 })).toBe(
      false,
    );
    expect(await store.keys.holdForDispute('dispute:b', 'agent:filer', ['agent:other'], { limit: 2 })).toBe(
      true,
    );
    expect(await disputeHoldsOf(store, 'agent:filer')).toBe(2);
    later(60);
    expect(await store.keys.pruneUnused(new Date(now.getTime() - 30 * DAY), 100)).toBe(0);
    expect(await store.keys.releaseDisputeHolds('dispute:a')).toBe(1);
    expect(await disputeHoldsOf(store, 'agent:filer')).toBe(1);
    expect(await store.keys.pruneUnused(new Date(now.getTime() - 30 * DAY), 100)).toBe(1);
    expect(await store.keys.lookup(kid('R'))).toEqual([]);
    await store.keys.releaseDisputeHolds('dispute:b');
  });

  it('an unsettled dispute older than the hold age holds nothing and takes no place of its filer (P606)', async () => {
    const store = await target.open({ clock: () => now });
    later(1);
    await store.keys.pruneUnused(now, 1000);
    await store.keys.applyPassport(passport('agent:stale', '2026-01-01T00:00:00Z', 'sha256:s1', [kid('S')]));
    expect(
      await store.keys.holdForDispute('dispute:stale', 'agent:slow', ['agent:stale'], { limit: 1 }),
    ).toBe(true);
    later(60);
    const provenBefore = new Date(now.getTime() - 30 * DAY);
    const heldSince = new Date(now.getTime() - 59 * DAY);
    expect(await store.keys.pruneUnused(provenBefore, 100)).toBe(0);
    expect(await store.keys.holdForDispute('dispute:next', 'agent:slow', ['agent:x'], { limit: 1 })).toBe(
      false,
    );
    expect(
      await store.keys.holdForDispute('dispute:next', 'agent:slow', ['agent:x'], { limit: 1, heldSince }),
    ).toBe(true);
    // Placed again, a hold keeps its first time: a re-posted filing does not renew it.
    await store.keys.holdForDispute('dispute:stale', 'agent:slow', ['agent:stale']);
    expect(await store.keys.pruneUnused(provenBefore, 100, { disputeHeldSince: heldSince })).toBe(1);
    expect(await store.keys.lookup(kid('S'))).toEqual([]);
    for (const id of ['dispute:stale', 'dispute:next']) await store.keys.releaseDisputeHolds(id);
  });

  it('gives bindings from before migration 0015 the migration time as their proof, keeping the authors (P185)', async () => {
    const options = target.fresh('legacy');
    const store = await target.open({ ...options, clock: () => now });
    const legacy = (agent: string, k: string) =>
      store.keys.applyPassport(passport(agent, '2026-01-01T00:00:00Z', `sha256:${k}`, [kid(k)]));
    await legacy('agent:legacy', 'L');
    await legacy('agent:signer', 'S');
    await legacy('human:named', 'N');
    await legacy('agent:marked', 'M');
    await store.keys.applyPassport(
      passport('agent:marked', '2026-01-01T00:00:00Z', 'sha256:M2', [], [kid('M')], kid('M')),
    );
    // S signed a write whose record is gone (retention keeps its signature row); a record names human:named.
    await store.records.putAuthorship('interaction_record', 'sha256:gone', {
      status: 'verified',
      kid: kid('S'),
      evidence: 'sha256:S',
    });
    await store.records.put('delegation_mandate', 'mandate:1', {
      mandate_id: 'mandate:1',
      human_id: 'human:named',
    });
    // Back to the schema before 0015, the rows kept as that release wrote them.
    await sql`DROP TABLE key_record_subjects`.execute(store.db);
    await sql`DROP INDEX key_bindings_by_subject`.execute(store.db);
    await sql`DROP INDEX key_bindings_unused_by_seen`.execute(store.db);
    await sql`ALTER TABLE key_bindings DROP COLUMN authorised_at`.execute(store.db);
    await sql`ALTER TABLE key_bindings DROP COLUMN seen_at`.execute(store.db);
    await store.db
      .deleteFrom('store_migrations')
      .where('name', 'in', ['0015_key_binding_use', '0016_key_record_subjects'])
      .execute();
    await store.close();

    later(365);
    const upgraded = await target.open({ ...options, clock: () => now });
    const migratedAt = Date.now();
    // Proven when the migration ran: nothing is idle for a day yet.
    expect(await upgraded.keys.pruneUnused(new Date(migratedAt - DAY), 100)).toBe(0);
    // One age later the idle legacy binding goes; the author, the named human's and the retired one stay.
    expect(await upgraded.keys.pruneUnused(new Date(migratedAt + DAY), 100)).toBe(1);
    expect(await upgraded.keys.lookup(kid('L'))).toEqual([]);
    expect((await upgraded.keys.lookup(kid('S'))).length).toBe(1);
    expect((await upgraded.keys.lookup(kid('N'))).length).toBe(1);
    const retired = await sql<{ retired_at: string | null }>`SELECT retired_at FROM key_bindings
      WHERE kid = ${kid('M')}`.execute(upgraded.db);
    expect(retired.rows.map((r) => r.retired_at === null)).toEqual([false]);
  });

  it('estimates the directory without reading the table', async () => {
    const options = target.fresh('estimate');
    const store = await target.open({ ...options, clock: () => now });
    for (const n of [1, 2, 3]) {
      await store.keys.applyPassport(
        passport(`agent:count${n}`, '2026-01-01T00:00:00Z', `sha256:c${n}`, [kid(`${n}c`)]),
      );
    }
    expect(await store.keys.size()).toBe(3);
    if (dialect === 'postgres') {
      // Until the table is analysed there is no estimate; after, the planner's count.
      expect(await store.keys.estimatedSize()).toBeUndefined();
      await sql`ANALYZE key_bindings`.execute(store.db);
      // With the table locked by another session, a count waits; the estimate does not.
      const other = await target.open(options);
      await other.db.transaction().execute(async (trx) => {
        await sql`LOCK TABLE key_bindings IN ACCESS EXCLUSIVE MODE`.execute(trx);
        const estimate = await Promise.race([
          store.keys.estimatedSize(),
          new Promise((resolve) => setTimeout(() => resolve('waited'), 3_000)),
        ]);
        expect(estimate).toBe(3);
      });
    } else {
      expect(await store.keys.estimatedSize()).toBe(3);
    }
  });
});
