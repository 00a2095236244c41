// Tests of the per-kind retention policy on every dialect, with a limit of 3 so eviction is easy to see.
// Covers D17 / SPEC.md Limits (at most N entries per store, oldest evicted first) and D16 (state survives eviction).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordIdRetiredError } from './repositories/records.ts';
import type { Store } from './store.ts';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from './testing.ts';

const MACHINE = {
  commissioned: ['active'],
  active: ['declining', 'decommissioned'],
  declining: ['decommissioned'],
};

describe.each(dialectsUnderTest())('retention on %s (limit 3)', (dialect) => {
  let target: StoreTarget;
  let store: Store;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'retention');
    store = await target.open({ maxEntriesPerKind: 3 });
  });
  afterAll(async () => {
    await target.cleanup();
  });

  async function idsOf(kind: string): Promise<string[]> {
    const rows = await store.db
      .selectFrom('v2_records')
      .select('id')
      .where('kind', '=', kind)
      .orderBy('seq')
      .execute();
    return rows.map((r) => r.id);
  }

  it('evicts the oldest record of a kind first and leaves other kinds alone', async () => {
    await store.records.put('testament', 'other-1', { n: 1 });
    await store.records.put('testament', 'other-2', { n: 2 });
    for (const n of [1, 2, 3, 4, 5]) await store.records.put('objection', `obj-${n}`, { n });

    expect(await store.records.count('objection')).toBe(3);
    expect(await idsOf('objection')).toEqual(['obj-3', 'obj-4', 'obj-5']);
    expect(await store.records.get('objection', 'obj-1')).toBeUndefined();
    expect(await store.records.get('objection', 'obj-2')).toBeUndefined();
    expect(await store.records.count('testament')).toBe(2);
    expect(await idsOf('testament')).toEqual(['other-1', 'other-2']);
  });

  it('P508: an evicted record leaves what its writer kept, and its place in the order, with its tombstone', async () => {
    const first = await store.records.put('kept', 'k-1', { n: 1, big: 'x'.repeat(100) }, { keep: { n: 1 } });
    await store.records.put('kept', 'k-2', { n: 2 });
    for (const n of [3, 4, 5]) await store.records.put('kept', `k-${n}`, { n });
    expect(await store.records.tombstone('kept', 'k-1')).toMatchObject({
      content_hash: first.stored.content_hash,
      kept: { n: 1 },
      seq: first.stored.seq,
    });
    const plain = await store.records.tombstone('kept', 'k-2');
    expect(plain?.kept).toBeUndefined();
    expect(typeof plain?.seq).toBe('number');
  });

  it('P510: other content takes an evicted id only over the tombstone its caller names', async () => {
    const first = await store.records.put('again', 'a-1', { n: 1, sig: 'x' });
    for (const n of [2, 3, 4]) await store.records.put('again', `a-${n}`, { n });
    await expect(store.records.put('again', 'a-1', { n: 1, sig: 'y' })).rejects.toBeInstanceOf(
      RecordIdRetiredError,
    );
    await expect(
      store.records.put('again', 'a-1', { n: 1, sig: 'y' }, { overTombstone: 'sha256:other' }),
    ).rejects.toBeInstanceOf(RecordIdRetiredError);
    const revived = await store.records.put(
      'again',
      'a-1',
      { n: 1, sig: 'y' },
      { overTombstone: first.stored.content_hash },
    );
    expect(revived.status).toBe('created');
    expect((await store.records.get('again', 'a-1'))?.record).toEqual({ n: 1, sig: 'y' });
  });

  it('P536: once other content took an evicted id back, a re-post of it is identical and another a conflict', async () => {
    const first = await store.records.put('back', 'b-1', { n: 1, sig: 'x' });
    for (const n of [2, 3, 4]) await store.records.put('back', `b-${n}`, { n });
    const revived = { n: 1, sig: 'y' };
    await store.records.put('back', 'b-1', revived, { overTombstone: first.stored.content_hash });
    // Before P536: RecordIdRetiredError (the tombstone of the evicted content was judged before the live record).
    expect((await store.records.put('back', 'b-1', revived)).status).toBe('identical');
    expect((await store.records.put('back', 'b-1', { n: 1, sig: 'z' })).status).toBe('conflict');
  });

  it('is first-in first-out: re-putting an old record does not refresh its place', async () => {
    for (const n of [1, 2, 3]) await store.records.put('mirror', `m-${n}`, { n });
    expect((await store.records.put('mirror', 'm-1', { n: 1 })).status).toBe('identical');
    await store.records.put('mirror', 'm-4', { n: 4 });
    expect(await idsOf('mirror')).toEqual(['m-2', 'm-3', 'm-4']);

    // An evicted id keeps its meaning (issue 15): other content is refused, the same record may come back
    // as a new record at the young end.
    await expect(store.records.put('mirror', 'm-1', { n: 'new content' })).rejects.toBeInstanceOf(
      RecordIdRetiredError,
    );
    expect(await idsOf('mirror')).toEqual(['m-2', 'm-3', 'm-4']);
    const back = await store.records.put('mirror', 'm-1', { n: 1 });
    expect(back.status).toBe('created');
    expect(await idsOf('mirror')).toEqual(['m-3', 'm-4', 'm-1']);
  });

  it('never touches lifecycle state: an agent outlives the eviction of its records', async () => {
    const agent = 'agent-evicted';
    await store.lifecycle.commission(agent);
    await store.lifecycle.transition(agent, 'active', { allowed: MACHINE });
    await store.records.put('commissioning_certificate', agent, { agent_id: agent }, { agentId: agent });
    let prev = 'GENESIS';
    for (const n of [1, 2, 3, 4, 5]) {
      const hash = `sha256:${String(n).repeat(64)}`;
      expect(await store.lifecycle.appendVitality(agent, hash, prev)).toEqual({ ok: true });
      await store.records.put('vitality_report', `vit-${n}`, { agent_id: agent, n }, { agentId: agent });
      prev = hash;
    }
    for (const n of [1, 2, 3, 4]) await store.records.put('commissioning_certificate', `cert-${n}`, { n });

    expect(await store.records.get('commissioning_certificate', agent)).toBeUndefined();
    expect(await idsOf('vitality_report')).toEqual(['vit-3', 'vit-4', 'vit-5']);
    expect((await store.records.latestForAgent('vitality_report', agent))?.id).toBe('vit-5');
    expect(await store.lifecycle.get(agent)).toMatchObject({
      state: 'active',
      last_vitality_hash: prev,
      vitality_count: 5,
      history_count: 2,
    });
    expect(await store.lifecycle.appendVitality(agent, 'sha256:next', prev)).toEqual({ ok: true });
  });

  it('keeps the limit exact when 20 writers of one kind race', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.records.put('interaction', `race-${i}`, { i })),
    );
    expect(results.every((r) => r.status === 'created')).toBe(true);
    const newest = results
      .map((r) => r.stored)
      .sort((a, b) => a.seq - b.seq)
      .slice(-3)
      .map((r) => r.id);
    expect(await idsOf('interaction')).toEqual(newest);
    expect(await store.records.count('interaction')).toBe(3);
    const rows = await sql<{
      n: number | string;
    }>`SELECT COUNT(*) AS n FROM v2_records WHERE kind = 'interaction'`.execute(store.db);
    expect(Number(rows.rows[0]?.n)).toBe(3);
  });

  it('applies the limit of the store that writes: a larger limit keeps more, a smaller one trims on the next put', async () => {
    const roomy = await target.open({ maxEntriesPerKind: 5 });
    for (const n of [1, 2, 3, 4, 5]) await roomy.records.put('threshold', `t-${n}`, { n });
    expect(await roomy.records.count('threshold')).toBe(5);
    await store.records.put('threshold', 't-6', { n: 6 });
    expect(await idsOf('threshold')).toEqual(['t-4', 't-5', 't-6']);
    expect(await store.records.count('threshold')).toBe(3);
  });
});
