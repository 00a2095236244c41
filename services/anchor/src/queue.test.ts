// The durable anchor queue on every dialect: idempotent requests, batches closing at BATCH_MAX or the interval,
// disjoint claims by concurrent replicas (SKIP LOCKED on PostgreSQL), send leases, intents, retries. D19, ARCH §4.
import type { AnchorRepository, Store } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAnchorInclusion } from './core.ts';
import { hashOf } from './testing/app.ts';
import { batchTree } from './worker.ts';

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

describe.each(dialectsUnderTest())('anchor queue on %s', (dialect) => {
  let target: StoreTarget;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'anchor-queue');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  async function fresh(label: string, count = 1): Promise<Store[]> {
    const options = target.fresh(label);
    const stores: Store[] = [];
    for (let i = 0; i < count; i++) stores.push(await target.open(options));
    return stores;
  }

  it('stores a request once per hash and chain; a new chain is a new request', async () => {
    const [store] = await fresh('enqueue');
    const repo = store!.anchor;
    const a = await repo.enqueue('ethereum', hashOf('q1'));
    const b = await repo.enqueue('ethereum', hashOf('q1'));
    const c = await repo.enqueue('bitcoin', hashOf('q1'));
    expect(a.created).toBe(true);
    expect(b).toMatchObject({ created: false, item: { seq: a.item.seq } });
    expect(c.created).toBe(true);
    expect((await repo.latest(hashOf('q1')))?.item.seq).toBe(c.item.seq);
    expect((await repo.latest(hashOf('q1'), 'ethereum'))?.item.seq).toBe(a.item.seq);
  });

  it('racing requests for one hash create exactly one', async () => {
    const stores = await fresh('race-enqueue', 4);
    const results = await Promise.all(stores.map((s) => s.anchor.enqueue('ethereum', hashOf('raced'))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.item.seq)).size).toBe(1);
  });

  it('closes a batch at BATCH_MAX or once the oldest request is due, with paths to the root', async () => {
    const [store] = await fresh('close');
    const repo = store!.anchor;
    for (let i = 0; i < 3; i++) await repo.enqueue('ethereum', hashOf(`c${i}`));
    expect(
      await repo.closeBatch('ethereum', { max: 5, dueBefore: minutesAgo(1), build: batchTree }),
    ).toBeUndefined();
    const full = await repo.closeBatch('ethereum', { max: 2, dueBefore: minutesAgo(1), build: batchTree });
    expect(full).toMatchObject({ size: 2, state: 'created' });
    const due = await repo.closeBatch('ethereum', { max: 5, dueBefore: minutesAgo(-1), build: batchTree });
    expect(due).toMatchObject({ size: 1 });
    const items = await repo.batchItems(full!.id);
    expect(items.map((i) => i.bundle_hash)).toEqual([hashOf('c0'), hashOf('c1')]);
    for (const item of items) {
      expect(item.state).toBe('batched');
      expect(
        verifyAnchorInclusion(item.bundle_hash, item.leaf_index!, 2, item.merkle_path!, full!.root),
      ).toBe(true);
    }
  });

  it('concurrent replicas claim disjoint requests: every hash in exactly one batch', async () => {
    const stores = await fresh('claims', 4);
    const hashes = Array.from({ length: 60 }, (_, i) => hashOf(`claim ${i}`));
    for (const h of hashes) await stores[0]!.anchor.enqueue('ethereum', h);
    const claimed = await Promise.all(
      stores.map(async (s) => {
        const batches = [];
        for (;;) {
          const batch = await s.anchor.closeBatch('ethereum', { max: 7, build: batchTree });
          if (!batch) break;
          batches.push(batch);
        }
        return batches;
      }),
    );
    const all = claimed.flat();
    expect(all.every((b) => b.size <= 7)).toBe(true);
    const members = (await Promise.all(all.map((b) => stores[0]!.anchor.batchItems(b.id)))).flat();
    expect(members.map((m) => m.bundle_hash).sort()).toEqual([...hashes].sort());
  });

  it('one sender per chain: the lease, and intents only from its holder', async () => {
    const [s1, s2] = await fresh('lease', 2);
    const a = s1!.anchor;
    const b = s2!.anchor;
    expect(await a.acquireLease('ethereum', 'replica-a', 60_000)).toBe(true);
    expect(await b.acquireLease('ethereum', 'replica-b', 60_000)).toBe(false);
    expect(await a.acquireLease('ethereum', 'replica-a', 60_000)).toBe(true);
    await a.enqueue('ethereum', hashOf('leased'));
    const batch = (await a.closeBatch('ethereum', { max: 10, build: batchTree }))!;
    expect(await b.recordIntent(batch.id, { txId: '0x01', rawTx: '0x02', nonce: 7 }, 'replica-b')).toBe(
      false,
    );
    expect(await a.recordIntent(batch.id, { txId: '0x01', rawTx: '0x02', nonce: 7 }, 'replica-a')).toBe(true);
    expect(await a.recordIntent(batch.id, { txId: '0x03', rawTx: '0x04', nonce: 8 }, 'replica-a')).toBe(
      false,
    );
    expect(await b.batch(batch.id)).toMatchObject({
      state: 'sending',
      tx_id: '0x01',
      raw_tx: '0x02',
      nonce: 7,
    });
    expect(await b.nextNonce('ethereum')).toBe(8);
    await a.releaseLease('ethereum', 'replica-a');
    expect(await b.acquireLease('ethereum', 'replica-b', 1)).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(await a.acquireLease('ethereum', 'replica-a', 60_000)).toBe(true);
  });

  it('a refused write fails its batch and queues its hashes again up to ANCHOR_MAX_ATTEMPTS', async () => {
    const [store] = await fresh('retry');
    const repo: AnchorRepository = store!.anchor;
    const h = hashOf('retried');
    await repo.enqueue('bitcoin', h);
    const first = (await repo.closeBatch('bitcoin', { max: 10, build: batchTree }))!;
    expect(await repo.failBatch(first.id, 'bad-txns', 2)).toBe(1);
    const again = await repo.latest(h, 'bitcoin');
    expect(again?.item).toMatchObject({ state: 'queued', attempt: 2 });
    const second = (await repo.closeBatch('bitcoin', { max: 10, build: batchTree }))!;
    expect(await repo.failBatch(second.id, 'bad-txns', 2)).toBe(0);
    expect((await repo.latest(h, 'bitcoin'))?.item).toMatchObject({ state: 'failed', attempt: 2 });
    // A later request for the same hash is accepted again.
    expect((await repo.enqueue('bitcoin', h)).created).toBe(true);
  });

  it('confirming a batch confirms its requests', async () => {
    const [store] = await fresh('confirm');
    const repo = store!.anchor;
    await repo.enqueue('ethereum', hashOf('conf'));
    const batch = (await repo.closeBatch('ethereum', { max: 10, build: batchTree }))!;
    await repo.acquireLease('ethereum', 'me', 60_000);
    await repo.recordIntent(batch.id, { txId: '0xaa', rawTx: '0xbb', nonce: 0 }, 'me');
    await repo.markSent(batch.id);
    await repo.recordProgress(batch.id, {
      confirmations: 3,
      confirmed: false,
      blockNumber: 5,
      eventIndex: 0,
    });
    expect((await repo.latest(hashOf('conf')))?.item.state).toBe('batched');
    await repo.recordProgress(batch.id, { confirmations: 12, confirmed: true });
    const done = await repo.latest(hashOf('conf'));
    expect(done?.item.state).toBe('confirmed');
    expect(done?.batch).toMatchObject({
      state: 'confirmed',
      confirmations: 12,
      block_number: 5,
      event_index: 0,
    });
    expect(await repo.openCounts()).toEqual([]);
  });

  it("marks a batch sent with its requests' details and its progress in one step", async () => {
    const [store] = await fresh('sent-outcome');
    const repo = store!.anchor;
    const h = hashOf('sent with outcome');
    await repo.enqueue('transparency-log', h);
    const batch = (await repo.closeBatch('transparency-log', { max: 10, build: batchTree }))!;
    await repo.acquireLease('transparency-log', 'me', 60_000);
    await repo.recordIntent(batch.id, {}, 'me');
    const [item] = await repo.batchItems(batch.id);
    await repo.markSent(batch.id, {
      itemDetails: [{ seq: item!.seq, detail: { log_index: 7 } }],
      progress: { confirmations: 1, confirmed: true, anchoredAt: '2026-11-26T12:00:00.000Z' },
    });
    const done = await repo.latest(h);
    expect(done?.item).toMatchObject({ state: 'confirmed', detail: { log_index: 7 } });
    expect(done?.batch).toMatchObject({ state: 'confirmed', confirmations: 1 });
    expect(done?.batch?.sent_at).not.toBeNull();
  });
});
