// Tests that a store keeps everything across close and reopen (same SQLite file, same PostgreSQL schema).
// Covers docs/architecture.md §4 (durable stores: writes are committed before a response) and D16/D17 state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

const MACHINE = {
  commissioned: ['active'],
  active: ['declining', 'decommissioned'],
  declining: ['decommissioned'],
};

describe.each(dialectsUnderTest())('restart on %s', (dialect) => {
  let target: StoreTarget;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'restart');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('finds records, counts, lifecycle state, history and the vitality head after reopening', async () => {
    const options = target.fresh('restart');
    const before = await target.open({ ...options, maxEntriesPerKind: 2 });
    const record = { agent_id: 'agent-r', text: 'naïve ☕ 𝄞', nested: { z: [1, { y: null }], a: 'first' } };
    const put = await before.records.put('commissioning_certificate', 'agent-r', record, {
      agentId: 'agent-r',
    });
    for (const n of [1, 2, 3]) await before.records.put('objection_record', `o-${n}`, { n });
    await before.lifecycle.commission('agent-r');
    await before.lifecycle.transition('agent-r', 'active', { allowed: MACHINE, reason: 'ready' });
    await before.lifecycle.appendVitality('agent-r', 'sha256:head', 'GENESIS');
    const status = await before.lifecycle.get('agent-r');
    const history = await before.lifecycle.history('agent-r');
    await before.close();

    const after = await target.open({ ...options, maxEntriesPerKind: 2 });
    expect(await after.records.get('commissioning_certificate', 'agent-r')).toEqual(put.stored);
    expect((await after.records.get('commissioning_certificate', 'agent-r'))?.json).toBe(
      JSON.stringify(record),
    );
    expect(await after.records.count('objection_record')).toBe(2);
    expect(await after.records.get('objection_record', 'o-1')).toBeUndefined();
    expect(await after.lifecycle.get('agent-r')).toEqual(status);
    expect(await after.lifecycle.history('agent-r')).toEqual(history);
    expect(await after.lifecycle.appendVitality('agent-r', 'sha256:next', 'GENESIS')).toEqual({
      ok: false,
      reason: 'chain_mismatch',
      expected: 'sha256:head',
    });

    // Numbering continues after the restart and after eviction; it never reuses a number.
    const maxBefore = Math.max(
      put.stored.seq,
      ...(await after.db.selectFrom('v2_records').select('seq').execute()).map((r) => Number(r.seq)),
    );
    const next = await after.records.put('objection_record', 'o-4', { n: 4 });
    expect(next.stored.seq).toBeGreaterThan(maxBefore);
    expect(await after.records.put('commissioning_certificate', 'agent-r', record)).toMatchObject({
      status: 'identical',
    });
  });
});
