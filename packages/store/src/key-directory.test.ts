// The key directory on every dialect: bindings survive reopening, the first evidence is kept, expiry hides a key.
// Issue 15 item 1 (store-backed, shared by replicas, honours key expiry).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passportBinding } from './key-directory-testing.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

const binding = (kid: string, subject: string, evidence: string, expiresAt: string | null = null) => ({
  ...passportBinding(kid, subject, evidence),
  expiresAt,
});

describe.each(dialectsUnderTest())('key directory on %s', (dialect) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'key-directory');
  });
  afterAll(async () => {
    await target?.cleanup();
  });

  it('binds once per (kid, subject), keeps the first evidence, and another store on the same database sees it', async () => {
    const writer = await target.open();
    const kid = 'a'.repeat(32);
    expect(
      await writer.keys.bind([
        binding(kid, 'agent:one', 'sha256:first'),
        binding(kid, 'human:one', 'sha256:first'),
      ]),
    ).toBe(2);
    expect(await writer.keys.bind([binding(kid, 'agent:one', 'sha256:second')])).toBe(0);
    const reader = await target.open();
    const rows = await reader.keys.lookup(kid);
    expect(rows.map((r) => [r.subject, r.evidence]).sort()).toEqual([
      ['agent:one', 'sha256:first'],
      ['human:one', 'sha256:first'],
    ]);
    expect(await reader.keys.lookup('b'.repeat(32))).toEqual([]);
  });

  it('an expired binding no longer answers', async () => {
    const store = await target.open();
    const kid = 'c'.repeat(32);
    await store.keys.bind([binding(kid, 'agent:old', 'sha256:x', '2000-01-01T00:00:00Z')]);
    await store.keys.bind([binding(kid, 'agent:new', 'sha256:y', '2999-01-01T00:00:00Z')]);
    expect((await store.keys.lookup(kid)).map((r) => r.subject)).toEqual(['agent:new']);
  });

  it('expiry is compared as an instant: an offset or unreadable timestamp does not keep a key alive', async () => {
    const store = await target.open({ clock: () => new Date('2026-06-01T12:00:00Z') });
    const kid = 'd'.repeat(32);
    await store.keys.bind([
      // Reads later than "now" as a string, but is 2026-06-01T01:00:00Z: expired.
      binding(kid, 'agent:offset', 'sha256:x', '2026-06-01T23:00:00+22:00'),
      binding(kid, 'agent:garbled', 'sha256:x', 'next year'),
      // One second after "now": still current.
      binding(kid, 'agent:current', 'sha256:x', '2026-06-01T12:00:01Z'),
    ]);
    expect((await store.keys.lookup(kid)).map((r) => r.subject)).toEqual(['agent:current']);
  });
});
