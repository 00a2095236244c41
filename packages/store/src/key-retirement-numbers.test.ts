// The key directory's retirement numbers (P472), on every dialect: each retiring transaction gets the next number,
// `retiredSince` pages by (number, kid, subject) from a position, whatever the retirements' clocks said, and a
// retirement an older release wrote without a number (a rolling upgrade) is numbered after what was read.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kid, passport } from './key-directory-testing.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

describe.each(dialectsUnderTest())('retirement numbers on %s', (dialect) => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'key-retirement-numbers');
  });
  afterAll(async () => {
    await target?.cleanup();
  });

  it('numbers retirements in order, clocks aside, and numbers an older release’s retirement when asked', async () => {
    const onTime = await target.open();
    const behind = await target.open({ clock: () => new Date(Date.now() - 10 * 60_000) });
    await onTime.keys.applyPassport(
      passport('agent:n1', '2026-01-01T00:00:00Z', 'sha256:a1', [kid('1'), kid('2')]),
    );
    await onTime.keys.applyPassport(
      passport('agent:n2', '2026-01-01T00:00:00Z', 'sha256:b1', [kid('3'), kid('4')]),
    );
    await onTime.keys.applyPassport(
      passport('agent:n3', '2026-01-01T00:00:00Z', 'sha256:c1', [kid('5'), kid('6')]),
    );

    // Retired on time, then by a store ten minutes behind: the later number goes to the later retirement.
    expect(
      (await onTime.keys.applyPassport(passport('agent:n1', '2026-01-02T00:00:00Z', 'sha256:a2', [kid('1')])))
        .retiredKids,
    ).toEqual([kid('2')]);
    const first = await onTime.keys.retiredSince(null, 10);
    expect(first.map((p) => p.kid)).toEqual([kid('2')]);
    expect(
      (await behind.keys.applyPassport(passport('agent:n2', '2026-01-02T00:00:00Z', 'sha256:b2', [kid('3')])))
        .retiredKids,
    ).toEqual([kid('4')]);
    const next = await onTime.keys.retiredSince(first[0] ?? null, 10);
    expect(next.map((p) => p.kid)).toEqual([kid('4')]);
    expect(next[0]?.seq).toBeGreaterThan(first[0]?.seq ?? Number.POSITIVE_INFINITY);

    // An older release retires kid 6 without a number: not paged until numbered, then after the last position.
    await sql`UPDATE key_bindings SET retired_at = ${new Date().toISOString()}, retired_by = ${'sha256:c2'}
      WHERE kid = ${kid('6')}`.execute(onTime.db);
    expect(await onTime.keys.retiredSince(next[0] ?? null, 10)).toEqual([]);
    expect(await onTime.keys.numberUnnumberedRetirements()).toBe(1);
    expect(await onTime.keys.numberUnnumberedRetirements()).toBe(0);
    const adopted = await onTime.keys.retiredSince(next[0] ?? null, 10);
    expect(adopted.map((p) => p.kid)).toEqual([kid('6')]);
    expect(adopted[0]?.seq).toBeGreaterThan(next[0]?.seq ?? Number.POSITIVE_INFINITY);
  });

  it('numbers racing retirements from two stores without a lock cycle, one number each', async () => {
    const a = await target.open();
    const b = await target.open();
    const agents = Array.from({ length: 12 }, (_, i) => `agent:race-${i}`);
    const kids = (i: number) =>
      [0, 1, 2, 3].map((k) => `${i.toString(16).padStart(2, '0')}${k}`.padEnd(32, 'e'));
    await Promise.all(
      agents.map((agent, i) =>
        a.keys.applyPassport(passport(agent, '2026-01-01T00:00:00Z', `sha256:${i}x`, kids(i))),
      ),
    );
    // Per agent, two newer passports at once through the two stores, each dropping other keys, one also marking one.
    const outcomes = await Promise.all(
      agents.flatMap((agent, i) => {
        const [k0, k1, k2, k3] = kids(i) as [string, string, string, string];
        return [
          a.keys.applyPassport(passport(agent, '2026-01-02T00:00:00Z', `sha256:${i}y`, [k0, k1], [k2])),
          b.keys.applyPassport(passport(agent, '2026-01-03T00:00:00Z', `sha256:${i}z`, [k0, k3])),
        ];
      }),
    );
    const retiredTotal = outcomes.reduce((n, o) => n + o.retired, 0);
    expect(retiredTotal).toBeGreaterThan(0);
    const all = await a.keys.retiredSince(null, 1_000);
    const ours = all.filter((p) => p.subject.startsWith('agent:race-'));
    expect(ours).toHaveLength(retiredTotal);
    // One number per retiring application: as many distinct numbers as applications that retired something.
    expect(new Set(ours.map((p) => p.seq)).size).toBe(outcomes.filter((o) => o.retired > 0).length);
  });
});
