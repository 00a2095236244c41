// Pruning the key directory on every dialect (P174): a binding that never authorised a write and was not proven
// again since the cut-off goes; one that authorised, one that is retired, and one proven since, stay. Pruning never
// undoes a retirement, and a write cannot be authorised by a binding pruned after its lookup.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewKeyBinding, PassportKeys } from './repositories/key-directory.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

const kid = (c: string) => c.repeat(32);
const DAY = 86_400_000;

function passport(
  agentId: string,
  createdAt: string,
  evidence: string,
  active: string[],
  marked: string[] = [],
  signer: string | undefined = active[0],
): PassportKeys {
  const binding = (k: string): NewKeyBinding => ({
    kid: k,
    subject: agentId,
    alg: 'ed25519',
    publicKeyB64: 'AAAA',
    role: 'passport',
    evidence,
    expiresAt: null,
  });
  return {
    agentId,
    passportSignerKid: signer,
    createdAt,
    evidence,
    activeKids: active,
    retiredKids: marked,
    subjects: [agentId],
    bindings: active.map(binding),
  };
}

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

  it('keeps the bindings stored before migration 0015: they may have authorised writes already', async () => {
    const options = target.fresh('legacy');
    const store = await target.open({ ...options, clock: () => now });
    await store.keys.applyPassport(passport('agent:legacy', '2026-01-01T00:00:00Z', 'sha256:l1', [kid('L')]));
    // Back to the schema before 0015, the row kept as that release wrote it.
    await sql`DROP INDEX key_bindings_unused_by_seen`.execute(store.db);
    await sql`ALTER TABLE key_bindings DROP COLUMN authorised_at`.execute(store.db);
    await sql`ALTER TABLE key_bindings DROP COLUMN seen_at`.execute(store.db);
    await store.db.deleteFrom('store_migrations').where('name', '=', '0015_key_binding_use').execute();
    await store.close();

    later(365);
    const upgraded = await target.open({ ...options, clock: () => now });
    expect(await upgraded.keys.pruneUnused(now, 100)).toBe(0);
    expect((await upgraded.keys.lookup(kid('L'))).length).toBe(1);
  });
});
