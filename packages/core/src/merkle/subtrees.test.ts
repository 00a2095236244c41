// Tests for the storage-friendly RFC 9162 functions: a Map-backed store filled by completedSubtrees in random
// batches gives byte-identical roots and proofs with O(log n) reads. RFC 9162 §2.1; DECISIONS D18, D19.
import { describe, expect, it } from 'vitest';
import { toHex } from '../encoding/index.ts';
import {
  completedSubtrees,
  consistencyProofFromSubtrees,
  inclusionProofFromSubtrees,
  rfc9162ConsistencyProof,
  rfc9162InclusionProof,
  rfc9162Root,
  rootFromSubtrees,
  type SubtreeCoordinate,
  type SubtreeReader,
  subtreesForConsistency,
  subtreesForInclusion,
  subtreesForRoot,
} from './index.ts';
import { makeLeaves, referenceRoot, seededRandom } from './test-support.ts';

const hexAll = (list: readonly Uint8Array[]): string[] => list.map((h) => toHex(h));
const key = (level: number, index: number): string => `${level}/${index}`;

/** A log's node table: perfect subtrees only, with a reader that counts and checks every read. */
class SubtreeStore {
  readonly nodes = new Map<string, Uint8Array>();
  reads: SubtreeCoordinate[] = [];

  readonly read: SubtreeReader = (level, index) => {
    this.reads.push({ level, index });
    const hash = this.nodes.get(key(level, index));
    if (hash === undefined) throw new Error(`node ${key(level, index)} is not stored`);
    return hash;
  };

  append(startIndex: number, leaves: readonly Uint8Array[]): Array<SubtreeCoordinate & { hash: Uint8Array }> {
    this.reads = [];
    const made = completedSubtrees(startIndex, leaves, this.read);
    // Only nodes wholly left of startIndex may be read while appending.
    for (const { level, index } of this.reads)
      expect((index + 1) * 2 ** level).toBeLessThanOrEqual(startIndex);
    for (const node of made) {
      expect(this.nodes.has(key(node.level, node.index))).toBe(false);
      this.nodes.set(key(node.level, node.index), node.hash);
    }
    return made;
  }

  /** Runs `action` and returns its result with the coordinates it read. */
  measure<T>(action: () => T): { value: T; reads: SubtreeCoordinate[] } {
    this.reads = [];
    const value = action();
    return { value, reads: this.reads };
  }
}

function log2Ceil(n: number): number {
  let bits = 0;
  while (2 ** bits < n) bits += 1;
  return bits;
}

/** Builds a store of `total` leaves appended in random batches of 1..maxBatch. */
function buildStore(leaves: readonly Uint8Array[], maxBatch: number, seed: number): SubtreeStore {
  const random = seededRandom(seed);
  const store = new SubtreeStore();
  let size = 0;
  while (size < leaves.length) {
    const batch = Math.min(leaves.length - size, 1 + random(maxBatch));
    store.append(size, leaves.slice(size, size + batch));
    size += batch;
  }
  return store;
}

function checkSize(
  store: SubtreeStore,
  leaves: readonly Uint8Array[],
  size: number,
  points: readonly number[],
): void {
  const tree = leaves.slice(0, size);
  const bound = 2 * log2Ceil(size) + 2;
  const root = store.measure(() => rootFromSubtrees(size, store.read));
  expect(toHex(root.value)).toBe(toHex(rfc9162Root(tree)));
  expect(root.reads).toEqual(subtreesForRoot(size));
  expect(root.reads.length).toBeLessThanOrEqual(log2Ceil(size + 1));
  for (const index of points) {
    if (index >= size) continue;
    const proof = store.measure(() => inclusionProofFromSubtrees(index, size, store.read));
    expect(hexAll(proof.value)).toEqual(hexAll(rfc9162InclusionProof(tree, index)));
    expect(proof.reads).toEqual(subtreesForInclusion(index, size));
    expect(proof.reads.length).toBeLessThanOrEqual(bound);
  }
  for (const oldSize of [0, ...points.map((p) => p + 1), size]) {
    if (oldSize > size) continue;
    const proof = store.measure(() => consistencyProofFromSubtrees(oldSize, size, store.read));
    expect(hexAll(proof.value)).toEqual(hexAll(rfc9162ConsistencyProof(tree, oldSize)));
    expect(proof.reads).toEqual(subtreesForConsistency(oldSize, size));
    expect(proof.reads.length).toBeLessThanOrEqual(bound);
  }
}

describe('subtree coordinates', () => {
  it('a root reads one perfect subtree per set bit of the size, largest first', () => {
    expect(subtreesForRoot(0)).toEqual([]);
    expect(subtreesForRoot(1)).toEqual([{ level: 0, index: 0 }]);
    expect(subtreesForRoot(8)).toEqual([{ level: 3, index: 0 }]);
    expect(subtreesForRoot(13)).toEqual([
      { level: 3, index: 0 },
      { level: 2, index: 2 },
      { level: 0, index: 12 },
    ]);
  });

  it('an inclusion proof in a 7-leaf tree reads sibling subtrees nearest the leaf first', () => {
    // Leaf 2: sibling leaf 3, then [0,2), then the right edge [4,7) = [4,6) + leaf 6.
    expect(subtreesForInclusion(2, 7)).toEqual([
      { level: 0, index: 3 },
      { level: 1, index: 0 },
      { level: 1, index: 2 },
      { level: 0, index: 6 },
    ]);
    expect(subtreesForInclusion(0, 1)).toEqual([]);
  });

  it('a consistency proof reads nothing for equal sizes or from the empty tree', () => {
    expect(subtreesForConsistency(0, 9)).toEqual([]);
    expect(subtreesForConsistency(9, 9)).toEqual([]);
    // 3 → 7: leaf 2, leaf 3, [0,2), right edge [4,7).
    expect(subtreesForConsistency(3, 7)).toEqual([
      { level: 0, index: 2 },
      { level: 0, index: 3 },
      { level: 1, index: 0 },
      { level: 1, index: 2 },
      { level: 0, index: 6 },
    ]);
  });

  it('rejects impossible sizes and indices with a RangeError (caller bug)', () => {
    expect(() => subtreesForRoot(-1)).toThrow(RangeError);
    expect(() => subtreesForRoot(1.5)).toThrow(RangeError);
    expect(() => subtreesForInclusion(5, 5)).toThrow(RangeError);
    expect(() => subtreesForConsistency(6, 5)).toThrow(RangeError);
    const never: SubtreeReader = () => {
      throw new Error('must not read');
    };
    expect(() => inclusionProofFromSubtrees(0, 0, never)).toThrow(RangeError);
    expect(() => consistencyProofFromSubtrees(2, 1, never)).toThrow(RangeError);
    expect(() => completedSubtrees(-1, [], never)).toThrow(RangeError);
  });

  it('the empty tree needs no reads', () => {
    const never: SubtreeReader = () => {
      throw new Error('must not read');
    };
    expect(toHex(rootFromSubtrees(0, never))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(consistencyProofFromSubtrees(0, 0, never)).toEqual([]);
  });

  it('a reader that throws (a missing node) propagates its error', () => {
    const missing: SubtreeReader = (level, index) => {
      throw new Error(`missing ${level}/${index}`);
    };
    expect(() => rootFromSubtrees(3, missing)).toThrow('missing 1/0');
    expect(() => inclusionProofFromSubtrees(0, 3, missing)).toThrow('missing 0/1');
  });
});

describe('completedSubtrees', () => {
  it('appending leaves one by one completes exactly the parents each leaf closes, in order', () => {
    const leaves = makeLeaves(4);
    const store = new SubtreeStore();
    const made = leaves.map((leaf, i) =>
      store.append(i, [leaf]).map(({ level, index }) => key(level, index)),
    );
    expect(made).toEqual([['0/0'], ['0/1', '1/0'], ['0/2'], ['0/3', '1/1', '2/0']]);
    expect(toHex(store.nodes.get('2/0') as Uint8Array)).toBe(toHex(rfc9162Root(leaves)));
  });

  it('one batch of 6 reads nothing; the next leaf reads only stored left siblings', () => {
    const leaves = makeLeaves(8);
    const store = new SubtreeStore();
    store.append(0, leaves.slice(0, 6));
    expect(store.reads).toEqual([]);
    store.append(6, leaves.slice(6, 8));
    // Leaf 7 closes [6,8) (sibling leaf 6 made in this batch), [4,8) (needs stored 1/2) and [0,8) (needs stored 2/0).
    expect(store.reads).toEqual([
      { level: 1, index: 2 },
      { level: 2, index: 0 },
    ]);
  });

  it('a store built in random batches holds every perfect subtree and nothing else', () => {
    const leaves = makeLeaves(300, 'store');
    const store = buildStore(leaves, 17, 1);
    let expected = 0;
    for (let level = 0; 2 ** level <= 300; level++) {
      const count = Math.floor(300 / 2 ** level);
      expected += count;
      for (let index = 0; index < count; index++) {
        const range = leaves.slice(index * 2 ** level, (index + 1) * 2 ** level);
        expect(toHex(store.nodes.get(key(level, index)) as Uint8Array)).toBe(toHex(referenceRoot(range)));
      }
    }
    expect(store.nodes.size).toBe(expected);
  });

  it('an empty batch completes nothing', () => {
    const store = new SubtreeStore();
    expect(store.append(0, [])).toEqual([]);
  });
});

describe('subtree-based roots and proofs equal the list-based ones', () => {
  it('every tree size 1..300 of a store built in random batches (all points up to 40, sampled above)', () => {
    const leaves = makeLeaves(300, 'batch');
    const store = buildStore(leaves, 23, 2);
    const random = seededRandom(3);
    for (let size = 1; size <= 300; size++) {
      const points =
        size <= 40 ? [...Array(size).keys()] : [0, size - 1, random(size), random(size), random(size)];
      checkSize(store, leaves, size, points);
    }
  });

  it('after every batch while growing to 600 leaves', () => {
    const leaves = makeLeaves(600, 'grow');
    const random = seededRandom(4);
    const store = new SubtreeStore();
    let size = 0;
    while (size < leaves.length) {
      const batch = Math.min(leaves.length - size, 1 + random(40));
      store.append(size, leaves.slice(size, size + batch));
      size += batch;
      checkSize(store, leaves, size, [0, size - 1, random(size)]);
    }
  });

  it('random sizes of a 5,000-leaf store built in batches up to 500', () => {
    const leaves = makeLeaves(5000, 'large');
    const store = buildStore(leaves, 500, 5);
    const random = seededRandom(6);
    for (const size of [
      5000,
      4096,
      4097,
      2 ** 11 - 1,
      1 + random(5000),
      1 + random(5000),
      1 + random(5000),
    ]) {
      checkSize(store, leaves, size, [0, size - 1, random(size), random(size)]);
    }
  });
});
