// P205's store query on every dialect: an agent has live passport keys while one is bound, unretired and unexpired.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passportBinding } from './key-directory-testing.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

describe.each(dialectsUnderTest())('live passport keys on %s', (dialect) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'key-directory-live-keys');
  });
  afterAll(async () => {
    await target?.cleanup();
  });

  it('counts an unexpired passport binding, not an expired one, a principal one or another agent’s', async () => {
    const store = await target.open();
    await store.keys.bind([
      { ...passportBinding('c'.repeat(32), 'agent:expired', 'sha256:e'), expiresAt: '2001-01-01T00:00:00Z' },
      { ...passportBinding('d'.repeat(32), 'agent:principal-only', 'sha256:p'), role: 'principal' },
      { ...passportBinding('e'.repeat(32), 'agent:live', 'sha256:l'), expiresAt: null },
    ]);
    expect(await store.keys.hasLivePassportKeys('agent:live')).toBe(true);
    expect(await store.keys.hasLivePassportKeys('agent:expired')).toBe(false);
    expect(await store.keys.hasLivePassportKeys('agent:principal-only')).toBe(false);
    expect(await store.keys.hasLivePassportKeys('agent:unknown')).toBe(false);
  });

  it("P555: names an id's live kids of one role, as P45's continuity takes them", async () => {
    const store = await target.open();
    const principal = 'f'.repeat(32);
    await store.keys.bind([
      { ...passportBinding('a'.repeat(32), 'agent:kids', 'sha256:k'), expiresAt: null },
      { ...passportBinding('b'.repeat(32), 'agent:kids', 'sha256:k'), expiresAt: '2001-01-01T00:00:00Z' },
      { ...passportBinding(principal, 'human:kids', 'sha256:k'), role: 'principal', expiresAt: null },
    ]);
    expect(await store.keys.liveKids('agent:kids', 'passport')).toEqual(['a'.repeat(32)]);
    expect(await store.keys.liveKids('agent:kids', 'principal')).toEqual([]);
    expect(await store.keys.liveKids('human:kids', 'principal')).toEqual([principal]);
    expect(await store.keys.liveKids('agent:unknown', 'passport')).toEqual([]);
  });
});
