// The sequencer over the real repository: batches of at most BATCH_MAX, one commit at a time, a bounded queue,
// refused appends when a commit fails, and a drain on close. DECISIONS D18; docs/architecture.md §7 (tessera batching).
import { openStore, type Store } from '@proto/store';
import { afterEach, describe, expect, it } from 'vitest';
import { type BatchReport, Sequencer, SequencerClosedError, SequencerFullError } from './sequencer.ts';
import { bundleHash, digestOf } from './test-support.ts';

describe('sequencer', () => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  async function memoryStore(): Promise<Store> {
    const store = await openStore({ sqliteFile: ':memory:' });
    stores.push(store);
    return store;
  }

  it('commits concurrent appends in batches of at most BATCH_MAX, one transaction at a time', async () => {
    const store = await memoryStore();
    const reports: BatchReport[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const sequencer = new Sequencer({
      batchMax: 16,
      batchWaitMs: 5,
      maxPending: 10_000,
      commit: async (leaves) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          return await store.log.append(leaves);
        } finally {
          inFlight--;
        }
      },
      onBatch: (report) => reports.push(report),
    });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => sequencer.submit(digestOf(bundleHash(i, 'seq')))),
    );
    expect(new Set(results.map((r) => r.index)).size).toBe(200);
    expect(results.every((r) => r.created && r.treeSize > r.index)).toBe(true);
    expect(maxInFlight).toBe(1);
    expect(Math.max(...reports.map((r) => r.size))).toBeLessThanOrEqual(16);
    expect(reports.reduce((n, r) => n + r.appended, 0)).toBe(200);
    expect(reports.length).toBeLessThan(200 / 4);
    expect((await store.log.head()).size).toBe(200);
  });

  it('waits up to BATCH_WAIT_MS for as many appends as the last batch held, no longer', async () => {
    const store = await memoryStore();
    const sizes: number[] = [];
    const sequencer = new Sequencer({
      batchMax: 256,
      batchWaitMs: 60,
      maxPending: 100,
      commit: (leaves) => store.log.append(leaves),
      onBatch: (report) => sizes.push(report.size),
    });
    const leaf = (i: number) => digestOf(bundleHash(i, 'wait'));
    // Idle and nothing known about the load: commit at once, with whatever arrived in the same round.
    await Promise.all([sequencer.submit(leaf(1)), sequencer.submit(leaf(2)), sequencer.submit(leaf(3))]);
    expect(sizes).toEqual([3]);
    // Three expected: two wait for the third; the batch goes as soon as it arrives, before the timer.
    const started = performance.now();
    const early = [sequencer.submit(leaf(4)), sequencer.submit(leaf(5))];
    await new Promise((r) => setTimeout(r, 15));
    early.push(sequencer.submit(leaf(6)));
    await Promise.all(early);
    expect(sizes).toEqual([3, 3]);
    expect(performance.now() - started).toBeLessThan(55);
    // Fewer than expected: BATCH_WAIT_MS is the longest wait.
    const lone = performance.now();
    await sequencer.submit(leaf(7));
    expect(performance.now() - lone).toBeGreaterThanOrEqual(50);
    expect(sizes).toEqual([3, 3, 1]);
    await sequencer.close();
  });

  it('refuses appends beyond MAX_PENDING, refuses a failed batch, drains on close', async () => {
    const store = await memoryStore();
    let fail = true;
    const sequencer = new Sequencer({
      batchMax: 256,
      batchWaitMs: 20,
      maxPending: 3,
      commit: async (leaves) => {
        if (fail) throw new Error('disk full');
        return store.log.append(leaves);
      },
    });
    const accepted = [1, 2, 3].map((i) => sequencer.submit(digestOf(bundleHash(i, 'full'))));
    await expect(sequencer.submit(digestOf(bundleHash(4, 'full')))).rejects.toBeInstanceOf(
      SequencerFullError,
    );
    for (const p of accepted) await expect(p).rejects.toThrow('disk full');
    expect((await store.log.head()).size).toBe(0);

    fail = false;
    const pending = [5, 6].map((i) => sequencer.submit(digestOf(bundleHash(i, 'full'))));
    await sequencer.close();
    expect((await Promise.all(pending)).map((r) => r.index)).toEqual([0, 1]);
    await expect(sequencer.submit(digestOf(bundleHash(7, 'full')))).rejects.toBeInstanceOf(
      SequencerClosedError,
    );
    expect(sequencer.pending).toBe(0);
  });
});
