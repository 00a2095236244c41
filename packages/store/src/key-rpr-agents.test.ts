// P600 and P602 in the key directory: one RPR (one payload hash) binds one agent, and an RPR its human did not sign
// binds its keys to no one. RPRs repeat their session's nonce, so a human's second agent comes with a second RPR.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kid, passport, passportBinding } from './key-directory-testing.ts';
import type { PassportKeys } from './repositories/key-directory.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

/** A bundle of `agentId` (signed by its passport key `agentKid`) whose RPR `rprHash` names `humanId`, signed by `rprKid`. */
const bundle = (
  agentId: string,
  agentKid: string,
  humanId: string,
  rprKid: string,
  rprHash: string,
): PassportKeys => {
  const own = passport(agentId, '2026-01-01T00:00:00Z', `sha256:${agentId}-${rprHash}`, [agentKid]);
  return {
    ...own,
    humanId,
    principalSignerKid: rprKid,
    principalIssuedAt: '2026-01-01T00:00:00Z',
    rprHash,
    subjects: [humanId, agentId],
    bindings: [
      ...own.bindings,
      { ...passportBinding(rprKid, humanId, own.evidence), role: 'principal' },
      { ...passportBinding(rprKid, agentId, own.evidence), role: 'principal' },
    ],
  };
};

const subjectsOf = async (store: Awaited<ReturnType<StoreTarget['open']>>, k: string) =>
  (await store.keys.lookup(k)).map((r) => r.subject).sort();

describe.each(dialectsUnderTest())('one RPR, one agent, on %s', (dialect) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'key-rpr-agents');
  });
  afterAll(async () => {
    await target?.cleanup();
  });

  it("P600: a second agent id under a known RPR binds nothing and is told the first agent's id", async () => {
    const store = await target.open();
    const first = await store.keys.applyPassport(
      bundle('agent:a', kid('a'), 'human:h', kid('h'), 'sha256:r1'),
    );
    expect(first).toMatchObject({ order: 'same', bound: 3 });
    expect(await store.keys.rprAgent('sha256:r1')).toBe('agent:a');
    // The same agent again (a replay, or a new passport under the same RPR): still its own.
    expect(
      (await store.keys.applyPassport(bundle('agent:a', kid('a'), 'human:h', kid('h'), 'sha256:r1')))
        .rprAgent,
    ).toBeUndefined();
    // A stranger's new agent beside the copied RPR: before, bound under H (order 'same', 2 new bindings).
    const copy = await store.keys.applyPassport(
      bundle('agent:x', kid('x'), 'human:h', kid('h'), 'sha256:r1'),
    );
    expect(copy).toMatchObject({ order: 'foreign', bound: 0, retired: 0, rprAgent: 'agent:a' });
    expect(await store.keys.lookup(kid('x'))).toEqual([]);
    expect(await subjectsOf(store, kid('h'))).toEqual(['agent:a', 'human:h']);
    expect(await store.keys.currentPrincipal('agent:x')).toBeUndefined();
    // A known agent of the stranger's own, carrying the copy, does not make H its principal.
    await store.keys.applyPassport(bundle('agent:y', kid('y'), 'human:s', kid('s'), 'sha256:ry'));
    const borrowed = await store.keys.applyPassport(
      bundle('agent:y', kid('y'), 'human:h', kid('h'), 'sha256:r1'),
    );
    expect(borrowed).toMatchObject({ order: 'foreign', bound: 0, rprAgent: 'agent:a' });
    expect(await store.keys.currentPrincipal('agent:y')).toBe('human:s');
    // H's second agent with its own RPR, signed by H's key: bound as before.
    const second = await store.keys.applyPassport(
      bundle('agent:b', kid('b'), 'human:h', kid('h'), 'sha256:r2'),
    );
    expect(second).toMatchObject({ order: 'same', bound: 2 });
  });

  it('P600: agents racing with one RPR: exactly one binds', async () => {
    const store = await target.open();
    const other = await target.open();
    for (let round = 0; round < 5; round += 1) {
      const rpr = `sha256:race-${round}`;
      const agents = ['p', 'q', 'r', 's'].map((c) => ({
        id: `agent:race-${round}-${c}`,
        k: kid(`${c}${round}`),
      }));
      const outcomes = await Promise.all(
        agents.map((a, i) =>
          (i % 2 === 0 ? store : other).keys.applyPassport(
            bundle(a.id, a.k, `human:race-${round}`, kid(`h${round}`), rpr),
          ),
        ),
      );
      const bound = agents.filter((_, i) => outcomes[i]?.order !== 'foreign');
      expect(bound, JSON.stringify(outcomes)).toHaveLength(1);
      expect(await store.keys.rprAgent(rpr)).toBe(bound[0]?.id);
      for (const a of agents) {
        expect((await store.keys.lookup(a.k)).length).toBe(a === bound[0] ? 1 : 0);
      }
    }
  });

  it("P602: a known agent's RPR its human did not sign binds its key to no one", async () => {
    const store = await target.open();
    await store.keys.applyPassport(bundle('agent:k', kid('k'), 'human:own', kid('o'), 'sha256:k1'));
    await store.keys.applyPassport(bundle('agent:l', kid('l'), 'human:other', kid('m'), 'sha256:l1'));
    // agent:k's own key signs a passport whose RPR names human:other, signed by a key of agent:k's making.
    const claimed = await store.keys.applyPassport(
      bundle('agent:k', kid('k'), 'human:other', kid('n'), 'sha256:k2'),
    );
    expect(await store.keys.liveKids('human:other', 'principal')).toEqual([kid('m')]);
    // before: 1 (kid n bound to agent:k as its principal's key).
    expect(claimed.bound).toBe(0);
    expect(await store.keys.lookup(kid('n'))).toEqual([]);
    expect(await store.keys.currentPrincipal('agent:k')).toBe('human:own');
  });
});
