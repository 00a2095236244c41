// P560: an agent's current principal, as the key directory places it from verified bundles: the human of its newest
// RPR by `issued_at`, never an older one replayed, one dated beyond the clock skew, or one of a bundle the agent's
// live keys did not sign (P45).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kid, passport } from './key-directory-testing.ts';
import type { PassportKeys } from './repositories/key-directory.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

const AGENT = 'agent:p560-handed-over';

/** A bundle of AGENT (its passport signed by `signer`) whose RPR names `humanId`, issued at `issuedAt`. */
const bundleOf = (humanId: string, issuedAt: string, evidence: string, signer = kid('a')): PassportKeys => ({
  ...passport(AGENT, '2026-06-01T00:00:00Z', evidence, [kid('a')], [], signer),
  humanId,
  principalIssuedAt: issuedAt,
  subjects: [AGENT, humanId],
});

describe.each(dialectsUnderTest())("an agent's current principal on %s", (dialect) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'key-principals');
  });
  afterAll(async () => {
    await target?.cleanup();
  });

  it('is the human of the newest RPR by issued_at, whatever order the bundles arrive in', async () => {
    const store = await target.open({ clock: () => new Date('2026-06-10T00:00:00Z') });
    expect(await store.keys.currentPrincipal(AGENT)).toBeUndefined();
    await store.keys.applyPassport(bundleOf('human:former', '2026-06-01T00:00:00Z', 'sha256:1'));
    expect(await store.keys.currentPrincipal(AGENT)).toBe('human:former');
    await store.keys.applyPassport(bundleOf('human:current', '2026-06-02T00:00:00+02:00', 'sha256:2'));
    expect(await store.keys.currentPrincipal(AGENT)).toBe('human:current');
    // The former principal's bundle replayed, one issued far ahead (the clock skew, P173), one the agent never signed.
    await store.keys.applyPassport(bundleOf('human:former', '2026-06-01T00:00:00Z', 'sha256:1'));
    await store.keys.applyPassport(bundleOf('human:future', '2999-01-01T00:00:00Z', 'sha256:3'));
    await store.keys.applyPassport(bundleOf('human:stranger', '2026-06-09T00:00:00Z', 'sha256:4', kid('f')));
    expect(await store.keys.currentPrincipal(AGENT)).toBe('human:current');
    await store.keys.applyPassport(bundleOf('human:next', '2026-06-09T00:00:00Z', 'sha256:5'));
    expect(await store.keys.currentPrincipal(AGENT)).toBe('human:next');
  });

  it('P601: is no one once the newest RPR has expired, until a newer RPR (an older one never)', async () => {
    let now = new Date('2026-06-10T00:00:00Z');
    const store = await target.open({ clock: () => now });
    const agent = 'agent:p601-expiring';
    const expiring = (humanId: string, issuedAt: string, expiresAt: string | null, evidence: string) => ({
      ...bundleOf(humanId, issuedAt, evidence),
      agentId: agent,
      subjects: [agent, humanId],
      principalExpiresAt: expiresAt,
    });
    await store.keys.applyPassport(expiring('human:older', '2026-06-08T00:00:00Z', null, 'sha256:p601-0'));
    await store.keys.applyPassport(
      expiring('human:lapsing', '2026-06-09T00:00:00Z', '2026-06-10T01:00:00.001+01:00', 'sha256:p601-1'),
    );
    expect(await store.keys.currentPrincipal(agent)).toBe('human:lapsing');
    now = new Date('2026-06-10T00:00:00.001Z');
    // before: 'human:lapsing', the expired RPR's human still current.
    expect(await store.keys.currentPrincipal(agent)).toBeUndefined();
    await store.keys.applyPassport(expiring('human:older', '2026-06-08T00:00:00Z', null, 'sha256:p601-0'));
    expect(await store.keys.currentPrincipal(agent)).toBeUndefined();
    await store.keys.applyPassport(
      expiring('human:renewed', '2026-06-10T00:00:00Z', '2026-07-01T00:00:00Z', 'sha256:p601-2'),
    );
    expect(await store.keys.currentPrincipal(agent)).toBe('human:renewed');
  });
});
