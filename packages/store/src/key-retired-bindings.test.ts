// The key directory's retired bindings as POST /verify reads them (P282), on every dialect: only retired ones, only
// of the kids and subjects asked, with when and by which bundle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kid, passport } from './key-directory-testing.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

describe.each(dialectsUnderTest())('retired bindings on %s', (dialect) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'key-retired-bindings');
  });
  afterAll(async () => {
    await target?.cleanup();
  });

  it('names a binding a newer passport retired, and nothing live, foreign or not asked for', async () => {
    const store = await target.open();
    const agent = 'agent:retiring';
    await store.keys.applyPassport(
      passport(agent, '2026-01-01T00:00:00Z', 'sha256:r1', [kid('1'), kid('2')]),
    );
    expect(await store.keys.retiredBindings([kid('1'), kid('2')], [agent])).toEqual([]);

    await store.keys.applyPassport(passport(agent, '2026-01-02T00:00:00Z', 'sha256:r2', [kid('1')]));
    const retired = await store.keys.retiredBindings([kid('1'), kid('2')], [agent, 'human:someone']);
    expect(retired).toEqual([
      {
        kid: kid('2'),
        subject: agent,
        role: 'passport',
        retiredAt: expect.any(String),
        retiredBy: 'sha256:r2',
      },
    ]);
    expect(Number.isFinite(Date.parse(retired[0]?.retiredAt ?? ''))).toBe(true);
    // Another subject, another kid, or nothing asked: nothing.
    expect(await store.keys.retiredBindings([kid('2')], ['agent:other'])).toEqual([]);
    expect(await store.keys.retiredBindings([kid('1')], [agent])).toEqual([]);
    expect(await store.keys.retiredBindings([], [agent])).toEqual([]);
    expect(await store.keys.retiredBindings([kid('2')], [])).toEqual([]);
  });
});
