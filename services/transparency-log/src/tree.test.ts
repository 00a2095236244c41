// Roots and proofs read from the stored subtrees equal a naive RFC 9162 reference: every size 1…300, random sizes
// to 5,000, appended in random batches through the real repository. DECISIONS D18; RFC 9162 §2.1.

import { verifyTlogConsistency, verifyTlogInclusion } from '@proto/core';
import type { Store, StoreDialect } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleHash, digestOf, hex, naiveConsistency, naiveInclusion, naiveRoot } from './test-support.ts';
import { consistencyAnswer, inclusionAnswer, NodeCache, rootAt } from './tree.ts';

/** Deterministic pseudo-random numbers (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Appends hashes [from, to) in random batch sizes up to maxBatch; checks the indices assigned. */
async function appendRange(store: Store, from: number, to: number, maxBatch: number, rand: () => number) {
  let next = from;
  while (next < to) {
    const size = Math.min(to - next, 1 + Math.floor(rand() * maxBatch));
    const leaves = Array.from({ length: size }, (_, i) => digestOf(bundleHash(next + i)));
    const outcome = await store.log.append(leaves);
    expect(outcome.results.map((r) => r.index)).toEqual(leaves.map((_, i) => next + i));
    expect(outcome.head.size).toBe(next + size);
    next += size;
  }
}

/** Edges (first, last, middle, the largest power of two below n) plus `extra` random picks in [0, n). */
function sample(n: number, rand: () => number, extra: number): number[] {
  let power = 1;
  while (power * 2 < n) power *= 2;
  const picks = new Set<number>([0, n - 1, Math.floor(n / 2), power - 1, power]);
  for (let i = 0; i < extra; i++) picks.add(Math.floor(rand() * n));
  return [...picks].filter((i) => i >= 0 && i < n);
}

describe.each(dialectsUnderTest())('stored tree on %s', (dialect: StoreDialect) => {
  let target: StoreTarget;
  let store: Store;
  const inputs = Array.from({ length: 5000 }, (_, i) => digestOf(bundleHash(i)));

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'tlog-tree');
    store = await target.open();
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('matches the reference for every size 1…300: root, inclusion of sampled leaves, consistency', async () => {
    const rand = random(300);
    await appendRange(store, 0, 300, 37, rand);
    const nodes = new NodeCache(store.log, 0); // no cache: every answer reads the database
    for (let n = 1; n <= 300; n++) {
      const root = naiveRoot(inputs, n);
      expect(hex(await rootAt(nodes, n)), `root ${n}`).toBe(hex(root));
      for (const index of n <= 24 ? [...Array(n).keys()] : sample(n, rand, 2)) {
        const answer = await inclusionAnswer(nodes, index, n);
        expect(answer.proof.map(hex), `inclusion ${index}/${n}`).toEqual(
          naiveInclusion(index, inputs, n).map(hex),
        );
        expect(hex(answer.root)).toBe(hex(root));
        const verified = verifyTlogInclusion(
          { size: n, root },
          { bundleHash: bundleHash(index), index, proof: answer.proof },
        );
        expect(verified.ok).toBe(true);
      }
      for (const m of n <= 24 ? [...Array(n + 1).keys()] : [0, 1, ...sample(n, rand, 2), n]) {
        const answer = await consistencyAnswer(nodes, m, n);
        expect(answer.proof.map(hex), `consistency ${m}->${n}`).toEqual(
          naiveConsistency(m, inputs, n).map(hex),
        );
        const old = { size: m, root: naiveRoot(inputs, m) };
        expect(verifyTlogConsistency(old, { size: n, root }, answer.proof).ok).toBe(true);
      }
    }
  });

  it('matches the reference at random sizes up to 5,000 (batches up to 700, multi-statement inserts)', async () => {
    const rand = random(5000);
    const head = await store.log.head();
    await appendRange(store, head.size, 5000, 700, rand);
    const nodes = new NodeCache(store.log, 10_000);
    expect(hex((await store.log.head()).root)).toBe(hex(naiveRoot(inputs)));
    for (let round = 0; round < 40; round++) {
      const n = 1 + Math.floor(rand() * 5000);
      const index = Math.floor(rand() * n);
      const m = Math.floor(rand() * (n + 1));
      const inclusion = await inclusionAnswer(nodes, index, n);
      expect(inclusion.proof.map(hex), `inclusion ${index}/${n}`).toEqual(
        naiveInclusion(index, inputs, n).map(hex),
      );
      const consistency = await consistencyAnswer(nodes, m, n);
      expect(consistency.proof.map(hex), `consistency ${m}->${n}`).toEqual(
        naiveConsistency(m, inputs, n).map(hex),
      );
      expect(hex(consistency.secondRoot)).toBe(hex(naiveRoot(inputs, n)));
    }
  });

  it('keeps cached nodes in buffers of their own (a cached view would pin the whole buffer it was read into)', async () => {
    // The soak's log: external memory rose ~15 MB/min with a flat heap while the cache filled with
    // 32-byte views into the driver's row buffers and Node's 8 KB pool slabs.
    const nodes = new NodeCache(store.log, 10_000);
    const coordinates = Array.from({ length: 64 }, (_, index) => ({ level: 4, index }));
    await nodes.read(coordinates);
    const cached = await nodes.read(coordinates);
    expect(cached.size).toBe(64);
    for (const hash of cached.values()) {
      expect(hash.byteLength).toBe(32);
      expect(hash.buffer.byteLength).toBe(32);
    }
  });

  it('stores one signed root per size: the same root again is `exists`, another is refused', async () => {
    const head = await store.log.head();
    const record = { size: head.size, root: head.root, note: 'note\n', signedAt: new Date().toISOString() };
    expect(await store.log.saveCheckpoint(record)).toBe('created');
    expect(await store.log.saveCheckpoint({ ...record, note: 'other note\n' })).toBe('exists');
    const otherRoot = new Uint8Array(32).fill(9);
    expect(await store.log.saveCheckpoint({ ...record, root: otherRoot })).toBe('conflict');
    expect((await store.log.checkpoint(head.size))?.note).toBe('note\n');
    expect((await store.log.latestCheckpoint())?.size).toBe(head.size);
  });

  it('keeps one index per leaf: repeats (across and within batches) return the first index and time', async () => {
    const before = await store.log.head();
    const again = await store.log.append([
      digestOf(bundleHash(7)),
      digestOf(bundleHash(7)),
      digestOf(bundleHash(4999)),
    ]);
    expect(again.results.map((r) => [r.index, r.created])).toEqual([
      [7, false],
      [7, false],
      [4999, false],
    ]);
    expect(again.appended).toBe(0);
    expect((await store.log.head()).size).toBe(before.size);

    const fresh = digestOf(bundleHash(1, 'dup'));
    const mixed = await store.log.append([fresh, digestOf(bundleHash(3)), fresh]);
    expect(mixed.results.map((r) => [r.index, r.created])).toEqual([
      [before.size, true],
      [3, false],
      [before.size, false],
    ]);
    expect(mixed.head.size).toBe(before.size + 1);
    const entry = await store.log.findEntry(fresh);
    expect(entry?.index).toBe(before.size);
    expect(entry?.timestamp).toBe(mixed.results[0]?.timestamp);
  });
});
