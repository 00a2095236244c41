// Key rotation in the key directory on every dialect (issue 15 item 5, P45): the newest passport's key list
// decides, an older passport binds no passport key, a marked key is retired only for the bundle's own subjects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kid, passport, passportBinding } from './key-directory-testing.ts';
import type { PassportKeys } from './repositories/key-directory.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

describe.each(dialectsUnderTest())('key rotation on %s', (dialect) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'key-rotation');
  });
  afterAll(async () => {
    await target?.cleanup();
  });

  it('a newer passport retires the keys it drops; replaying the older one brings none back', async () => {
    const store = await target.open();
    const agent = 'agent:rotating';
    const first = passport(agent, '2026-01-01T00:00:00Z', 'sha256:p1', [kid('a'), kid('b')]);
    expect(await store.keys.applyPassport(first)).toMatchObject({ order: 'same', bound: 2 });
    // Written with an offset: an instant one hour later than the first.
    const second = passport(agent, '2026-01-01T02:00:00+01:00', 'sha256:p2', [kid('a'), kid('c')]);
    expect(await store.keys.applyPassport(second)).toMatchObject({ order: 'newest', bound: 1, retired: 1 });
    expect(await store.keys.lookup(kid('b'))).toEqual([]);
    expect((await store.keys.lookup(kid('a'))).map((r) => r.subject)).toEqual([agent]);

    expect(await store.keys.applyPassport(first)).toMatchObject({ order: 'older', bound: 0 });
    expect(await store.keys.lookup(kid('b'))).toEqual([]);
    // An older passport listing a key never seen does not bind it either.
    const stale = passport(agent, '2025-12-31T00:00:00Z', 'sha256:p0', [kid('d')], [], kid('a'));
    expect(await store.keys.applyPassport(stale)).toMatchObject({ order: 'older', bound: 0 });
    expect(await store.keys.lookup(kid('d'))).toEqual([]);
    // Nor does one whose time cannot be read, once a time is known.
    const undated = passport(agent, 'yesterday', 'sha256:px', [kid('d')], [], kid('a'));
    expect(await store.keys.applyPassport(undated)).toMatchObject({ order: 'older', bound: 0 });

    // A replica (another store on the same database) sees the same directory.
    const replica = await target.open();
    expect(await replica.keys.lookup(kid('b'))).toEqual([]);
    expect((await replica.keys.lookup(kid('c'))).map((r) => r.evidence)).toEqual(['sha256:p2']);
  });

  it('a key marked revoked is retired for good, but only for the bundle’s own subjects', async () => {
    const store = await target.open();
    await store.keys.applyPassport(passport('agent:victim', '2026-01-01T00:00:00Z', 'sha256:v1', [kid('e')]));
    // Another agent's verified bundle lists the victim's (public) kid as revoked: nothing happens to the victim.
    const hostile = passport('agent:other', '2026-01-01T00:00:00Z', 'sha256:o1', [kid('f')], [kid('e')]);
    expect(await store.keys.applyPassport(hostile)).toMatchObject({ retired: 0 });
    expect((await store.keys.lookup(kid('e'))).map((r) => r.subject)).toEqual(['agent:victim']);

    // The victim's own passport marks it: retired, even though this passport is not newer.
    const marked = passport(
      'agent:victim',
      '2026-01-01T00:00:00Z',
      'sha256:v2',
      [kid('g')],
      [kid('e')],
      kid('e'),
    );
    expect(await store.keys.applyPassport(marked)).toMatchObject({ order: 'same', retired: 1 });
    expect(await store.keys.lookup(kid('e'))).toEqual([]);
    // Listing it active again later does not revive it.
    const revive = passport(
      'agent:victim',
      '2026-02-01T00:00:00Z',
      'sha256:v3',
      [kid('e'), kid('g')],
      [],
      kid('g'),
    );
    expect(await store.keys.applyPassport(revive)).toMatchObject({ order: 'newest', bound: 0 });
    expect(await store.keys.lookup(kid('e'))).toEqual([]);
  });

  it('of racing newer passports the newest wins, whatever order they commit in', async () => {
    const agent = 'agent:racing';
    const store = await target.open();
    await store.keys.applyPassport(passport(agent, '2026-01-01T00:00:00Z', 'sha256:r0', [kid('0')]));
    const stores = await Promise.all([1, 2, 3, 4].map(() => target.open()));
    // Each signed by the agent's standing key 0, which each also lists.
    const versions = [1, 2, 3, 4].map((n) =>
      passport(agent, `2026-01-0${n + 1}T00:00:00Z`, `sha256:r${n}`, [kid('0'), kid(String(n))]),
    );
    await Promise.all(versions.reverse().map((p, i) => stores[i]?.keys.applyPassport(p)));
    const bound = await Promise.all(
      [0, 1, 2, 3, 4].map(async (n) => (await store.keys.lookup(kid(String(n)))).length),
    );
    // Only the newest passport's keys still authorise; an older one that lost the race bound nothing.
    expect(bound).toEqual([1, 0, 0, 0, 1]);
  });

  it('a passport dated beyond the clock skew is placed nowhere, and one pinned before that rule gives way (P173)', async () => {
    const at = new Date('2026-03-01T00:00:00Z');
    const store = await target.open({ clock: () => at });
    const agent = 'agent:future';
    await store.keys.applyPassport(
      passport(agent, '2026-02-01T00:00:00Z', 'sha256:f1', [kid('j'), kid('k')]),
    );
    // Signed with the agent's (perhaps stolen) key j, dated 2999: it neither binds its new key nor drops k.
    const pinned = passport(agent, '2999-01-01T00:00:00Z', 'sha256:f2', [kid('j'), kid('l')]);
    expect(await store.keys.applyPassport(pinned)).toEqual({
      order: 'future',
      bound: 0,
      retired: 0,
      retiredKids: [],
    });
    expect(await store.keys.lookup(kid('l'))).toEqual([]);
    expect((await store.keys.lookup(kid('k'))).length).toBe(1);
    // Within the skew (five minutes) it is an ordinary newer passport.
    const soon = passport(agent, '2026-03-01T00:04:00Z', 'sha256:f3', [kid('j'), kid('m')]);
    expect(await store.keys.applyPassport(soon)).toMatchObject({ order: 'newest', bound: 1, retired: 1 });

    // A directory that stored a year-2999 passport before this rule (here: a store whose clock said 2999).
    const legacyAgent = 'agent:pinned';
    const then = await target.open({ clock: () => new Date('2999-01-01T00:00:00Z') });
    await then.keys.applyPassport(passport(legacyAgent, '2026-02-01T00:00:00Z', 'sha256:g1', [kid('n')]));
    await then.keys.applyPassport(passport(legacyAgent, '2999-01-01T00:00:00Z', 'sha256:g2', [kid('n')]));
    const rotation = passport(legacyAgent, '2026-02-15T00:00:00Z', 'sha256:g3', [kid('o')], [], kid('n'));
    expect(await store.keys.applyPassport(rotation)).toMatchObject({ order: 'newest', bound: 1, retired: 1 });
    expect(await store.keys.lookup(kid('n'))).toEqual([]);
  });

  it('a passport dated at a leap second is placed, read as the next midnight against the horizon (P178)', async () => {
    // RFC 3339's `…:60` verifies (P175) but Date.parse called it NaN: the store took it as undated, so a real
    // rotation written then was `older` and bound nothing.
    const at = new Date('2026-03-01T00:00:00Z');
    const store = await target.open({ clock: () => at });
    const agent = 'agent:leap';
    await store.keys.applyPassport(
      passport(agent, '2026-02-01T00:00:00Z', 'sha256:l1', [kid('p'), kid('q')]),
    );
    const leap = passport(agent, '2026-02-28T23:59:60Z', 'sha256:l2', [kid('p'), kid('r')]);
    expect(await store.keys.applyPassport(leap)).toMatchObject({ order: 'newest', bound: 1, retired: 1 });
    expect(await store.keys.lookup(kid('q'))).toEqual([]);
    // Five minutes before the next midnight it lies beyond the skew only when read no earlier than that midnight.
    const early = await target.open({ clock: () => new Date('2026-03-01T23:54:59.999Z') });
    const ahead = passport(agent, '2026-03-01T23:59:60Z', 'sha256:l3', [kid('p'), kid('s')]);
    expect(await early.keys.applyPassport(ahead)).toEqual({
      order: 'future',
      bound: 0,
      retired: 0,
      retiredKids: [],
    });
  });

  it('a bundle claiming an agent with live keys, not signed by one of them, binds and retires nothing', async () => {
    const store = await target.open();
    const agent = 'agent:owned';
    await store.keys.applyPassport(passport(agent, '2026-01-01T00:00:00Z', 'sha256:own1', [kid('7')]));
    // Anyone can make a bundle that verifies and claims this agent_id, with their own keys, a later date,
    // and the owner's kid marked revoked.
    const hijack = passport(agent, '2027-01-01T00:00:00Z', 'sha256:evil', [kid('8')], [kid('7')], kid('8'));
    expect(await store.keys.applyPassport(hijack)).toEqual({
      order: 'foreign',
      bound: 0,
      retired: 0,
      retiredKids: [],
    });
    expect(await store.keys.lookup(kid('8'))).toEqual([]);
    // P501, P555: the owner's live kids are what /verify's warning names (none of them signed the hijack).
    expect(await store.keys.liveKids(agent, 'passport')).toEqual([kid('7')]);
    expect((await store.keys.lookup(kid('7'))).map((r) => r.subject)).toEqual([agent]);
    // The owner's own passport, signed by its key, still rotates.
    const rotation = passport(agent, '2026-06-01T00:00:00Z', 'sha256:own2', [kid('9')], [], kid('7'));
    expect(await store.keys.applyPassport(rotation)).toMatchObject({ order: 'newest', bound: 1, retired: 1 });
    expect(await store.keys.lookup(kid('7'))).toEqual([]);
  });

  it('a human’s keys are kept the same way: an RPR not signed by a live key of that human binds nothing to it', async () => {
    const store = await target.open();
    const principal = (agentId: string, k: string, signer: string): PassportKeys => ({
      agentId,
      createdAt: '2026-01-01T00:00:00Z',
      evidence: `sha256:${agentId}`,
      activeKids: [],
      retiredKids: [],
      subjects: ['human:owner', agentId],
      humanId: 'human:owner',
      principalSignerKid: signer,
      bindings: [
        { ...passportBinding(k, 'human:owner', 'sha256:h'), role: 'principal' },
        { ...passportBinding(k, agentId, 'sha256:h'), role: 'principal' },
      ],
    });
    const first = await store.keys.applyPassport(principal('agent:first', kid('h'), kid('h')));
    expect(first.bound).toBe(2);
    // A stranger's bundle naming the same human_id: its agent, new here, is not first bound under a human whose keys
    // did not sign it (P584); the human's live kids, which /verify's warning names (P503, P555), are still its own.
    const stranger = await store.keys.applyPassport(principal('agent:stranger', kid('i'), kid('i')));
    expect(stranger).toMatchObject({ order: 'foreign', bound: 0 });
    expect(await store.keys.liveKids('human:owner', 'principal')).toEqual([kid('h')]);
    expect(await store.keys.liveKids('agent:stranger', 'passport')).toEqual([]);
    expect(await store.keys.lookup(kid('i'))).toEqual([]);
    expect(await store.keys.currentPrincipal('agent:stranger')).toBeUndefined();
    // The human's own key still binds its second agent (P45 continuity of the human).
    expect((await store.keys.applyPassport(principal('agent:second', kid('h'), kid('h')))).order).toBe(
      'same',
    );
    expect((await store.keys.lookup(kid('h'))).map((r) => r.subject).sort()).toEqual([
      'agent:first',
      'agent:second',
      'human:owner',
    ]);
  });
});
