// Tests for the RFC 9162 tree: known answers, proofs for every size 1..300 and random sizes to 5,000 against a
// reference written from the RFC, and rejection of tampered proofs. RFC 9162 §2.1; DECISIONS D4, D18.
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../encoding/index.ts';
import {
  rfc9162ConsistencyProof,
  rfc9162InclusionProof,
  rfc9162LeafHash,
  rfc9162NodeHash,
  rfc9162Root,
  verifyRfc9162Consistency,
  verifyRfc9162Inclusion,
} from './index.ts';
import {
  flipBit,
  makeLeaves,
  referenceConsistency,
  referenceLeafHash,
  referencePath,
  referenceRoot,
  seededRandom,
  sha256,
} from './test-support.ts';

const hex = (bytes: Uint8Array): string => toHex(bytes);
const hexAll = (list: readonly Uint8Array[]): string[] => list.map(hex);
const bytesOf = (text: string): Uint8Array => fromHex(text) as Uint8Array;

describe('RFC 9162 known answers', () => {
  it('empty tree root is SHA-256 of the empty string', () => {
    expect(hex(rfc9162Root([]))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('leaf and node hashes carry the 0x00 / 0x01 prefixes', () => {
    // SHA-256(0x00): the leaf hash of empty data.
    expect(hex(rfc9162LeafHash(new Uint8Array(0)))).toBe(
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    );
    const a = new Uint8Array(32).fill(0xaa);
    const b = new Uint8Array(32).fill(0xbb);
    expect(rfc9162NodeHash(a, b)).toEqual(sha256(new Uint8Array([1]), a, b));
    expect(rfc9162NodeHash(a, b)).not.toEqual(rfc9162NodeHash(b, a));
  });

  it('small trees computed by hand: sizes 1, 2, 3 and 5, their proofs', () => {
    const [l0, l1, l2, l3, l4] = ['a', 'b', 'c', 'd', 'e'].map((s) =>
      sha256(new Uint8Array([0]), Buffer.from(s)),
    );
    const node = (x: Uint8Array, y: Uint8Array) => sha256(new Uint8Array([1]), x, y);
    const leaves = [l0, l1, l2, l3, l4] as Uint8Array[];
    const [a, b, c, d, e] = leaves as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    const ab = node(a, b);
    const cd = node(c, d);
    expect(rfc9162Root([a])).toEqual(a);
    expect(rfc9162Root([a, b])).toEqual(ab);
    // Size 3 splits 2 + 1, no duplication of c.
    expect(rfc9162Root([a, b, c])).toEqual(node(ab, c));
    // Size 5 splits 4 + 1.
    const root5 = node(node(ab, cd), e);
    expect(rfc9162Root(leaves)).toEqual(root5);
    expect(rfc9162InclusionProof([a, b, c], 0)).toEqual([b, c]);
    expect(rfc9162InclusionProof([a, b, c], 2)).toEqual([ab]);
    expect(rfc9162InclusionProof(leaves, 4)).toEqual([node(ab, cd)]);
    expect(rfc9162InclusionProof(leaves, 3)).toEqual([c, ab, e]);
    expect(rfc9162ConsistencyProof([a, b, c], 1)).toEqual([b, c]);
    expect(rfc9162ConsistencyProof([a, b, c], 2)).toEqual([c]);
    expect(rfc9162ConsistencyProof([a, b, c, d], 3)).toEqual([c, d, ab]);
    expect(rfc9162ConsistencyProof(leaves, 4)).toEqual([e]);
    expect(rfc9162ConsistencyProof(leaves, 3)).toEqual([c, d, ab, e]);
    expect(verifyRfc9162Inclusion(d, 3, 5, [c, ab, e], root5)).toBe(true);
    expect(verifyRfc9162Consistency(3, 5, node(ab, c), root5, [c, d, ab, e])).toBe(true);
    expect(verifyRfc9162Consistency(4, 5, node(ab, cd), root5, [e])).toBe(true);
  });

  it('roots of the eight classic Certificate Transparency test leaves', () => {
    const data = [
      '',
      '00',
      '10',
      '2021',
      '3031',
      '40414243',
      '5051525354555657',
      '606162636465666768696a6b6c6d6e6f',
    ];
    const roots = [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
      'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
      '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
      '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
      'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
      '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
    ];
    const leaves = data.map((d) => rfc9162LeafHash(bytesOf(d)));
    roots.forEach((root, i) => {
      expect(hex(rfc9162Root(leaves.slice(0, i + 1)))).toBe(root);
    });
  });
});

/**
 * Every check one proof must pass and every tampering it must fail; returns the failures as text
 * (one assertion per tree size keeps tens of thousands of checks fast and the report readable).
 */
function inclusionProblems(
  leaves: readonly Uint8Array[],
  root: Uint8Array,
  index: number,
  tamper: boolean,
): string[] {
  const problems: string[] = [];
  const size = leaves.length;
  const at = `inclusion(${index}, ${size})`;
  const leaf = leaves[index] as Uint8Array;
  const proof = rfc9162InclusionProof(leaves, index);
  if (hexAll(proof).join() !== hexAll(referencePath(index, leaves)).join())
    problems.push(`${at}: differs from PATH`);
  if (!verifyRfc9162Inclusion(leaf, index, size, proof, root)) problems.push(`${at}: valid proof rejected`);
  if (!tamper) return problems;
  const accepted = (what: string, ok: boolean) => {
    if (ok) problems.push(`${at}: accepted ${what}`);
  };
  proof.forEach((_, i) => {
    const bad = proof.slice();
    bad[i] = flipBit(proof[i] as Uint8Array, i * 7);
    accepted(`a flipped bit in element ${i}`, verifyRfc9162Inclusion(leaf, index, size, bad, root));
  });
  accepted('a wrong leaf', verifyRfc9162Inclusion(flipBit(leaf), index, size, proof, root));
  accepted('a wrong root', verifyRfc9162Inclusion(leaf, index, size, proof, flipBit(root, 255)));
  accepted('an extra element', verifyRfc9162Inclusion(leaf, index, size, [...proof, root], root));
  if (proof.length > 0) {
    accepted('a missing element', verifyRfc9162Inclusion(leaf, index, size, proof.slice(0, -1), root));
  }
  if (proof.length > 1) {
    accepted('a reordered proof', verifyRfc9162Inclusion(leaf, index, size, [...proof].reverse(), root));
  }
  for (const wrong of [index - 1, index + 1, size, -1]) {
    accepted(`index ${wrong}`, verifyRfc9162Inclusion(leaf, wrong, size, proof, root));
  }
  return problems;
}

function consistencyProblems(
  leaves: readonly Uint8Array[],
  roots: readonly Uint8Array[],
  oldSize: number,
  tamper: boolean,
): string[] {
  const problems: string[] = [];
  const size = leaves.length;
  const at = `consistency(${oldSize}, ${size})`;
  const oldRoot = roots[oldSize] as Uint8Array;
  const newRoot = roots[size] as Uint8Array;
  const proof = rfc9162ConsistencyProof(leaves, oldSize);
  const expected = oldSize > 0 && oldSize < size ? hexAll(referenceConsistency(oldSize, leaves)) : [];
  if (hexAll(proof).join() !== expected.join()) problems.push(`${at}: differs from PROOF`);
  if (!verifyRfc9162Consistency(oldSize, size, oldRoot, newRoot, proof))
    problems.push(`${at}: valid proof rejected`);
  if (!tamper) return problems;
  const accepted = (what: string, ok: boolean) => {
    if (ok) problems.push(`${at}: accepted ${what}`);
  };
  proof.forEach((_, i) => {
    const bad = proof.slice();
    bad[i] = flipBit(proof[i] as Uint8Array, 3 + i);
    accepted(`a flipped bit in element ${i}`, verifyRfc9162Consistency(oldSize, size, oldRoot, newRoot, bad));
  });
  accepted('a wrong old root', verifyRfc9162Consistency(oldSize, size, flipBit(oldRoot), newRoot, proof));
  // From the empty tree nothing constrains the new root (the proof is empty by definition).
  if (oldSize > 0) {
    accepted('a wrong new root', verifyRfc9162Consistency(oldSize, size, oldRoot, flipBit(newRoot), proof));
  }
  accepted(
    'an extra element',
    verifyRfc9162Consistency(oldSize, size, oldRoot, newRoot, [...proof, newRoot]),
  );
  if (proof.length > 0) {
    accepted('a missing element', verifyRfc9162Consistency(oldSize, size, oldRoot, newRoot, proof.slice(1)));
  }
  if (proof.length > 1) {
    accepted(
      'a reordered proof',
      verifyRfc9162Consistency(oldSize, size, oldRoot, newRoot, [...proof].reverse()),
    );
  }
  for (const wrongOld of [oldSize - 1, oldSize + 1]) {
    if (wrongOld < 0 || wrongOld > size) continue;
    accepted(`old size ${wrongOld}`, verifyRfc9162Consistency(wrongOld, size, oldRoot, newRoot, proof));
  }
  // A wrong new size is not detectable from the proof alone: like the RFC, the verifier trusts the
  // (size, root) pair of a signed tree head, and trees of neighbouring sizes can share a proof shape.
  return problems;
}

/** Both ends, both sides of the largest power-of-two split, and three random points. */
function samplePoints(size: number, random: (max: number) => number): number[] {
  let k = 1;
  while (k * 2 < size) k *= 2;
  const points = new Set<number>([0, 1, size - 1, k - 1, k]);
  for (let i = 0; i < 3; i++) points.add(random(size));
  return [...points].filter((p) => p >= 0 && p < size).sort((x, y) => x - y);
}

describe('RFC 9162 proofs against the reference, every tree size 1..300', () => {
  const leaves = makeLeaves(300);
  const random = seededRandom(9162);
  // roots[s] = reference MTH of the first s leaves.
  const roots = Array.from({ length: 301 }, (_, size) => referenceRoot(leaves.slice(0, size)));

  it('roots equal the reference MTH for every size 0..300', () => {
    for (let size = 0; size <= 300; size++) {
      expect(hex(rfc9162Root(leaves.slice(0, size)))).toBe(hex(roots[size] as Uint8Array));
    }
  });

  it('leaf hashes equal SHA-256(0x00 ‖ data)', () => {
    const data = new TextEncoder().encode('leaf-7');
    expect(rfc9162LeafHash(data)).toEqual(referenceLeafHash(data));
  });

  it('inclusion: all indices up to size 64 (with tampering), sampled indices for sizes 65..300', () => {
    for (let size = 1; size <= 300; size++) {
      const tree = leaves.slice(0, size);
      const indices = size <= 64 ? [...Array(size).keys()] : samplePoints(size, random);
      const problems = indices.flatMap((index) =>
        inclusionProblems(tree, roots[size] as Uint8Array, index, size <= 64 || index % 3 === 0),
      );
      expect(problems).toEqual([]);
    }
  });

  it('consistency: all old sizes 0..n up to size 64 (with tampering), sampled for sizes 65..300', () => {
    for (let size = 1; size <= 300; size++) {
      const tree = leaves.slice(0, size);
      const olds = size <= 64 ? [...Array(size + 1).keys()] : [...samplePoints(size, random), size];
      const problems = olds.flatMap((oldSize) =>
        consistencyProblems(tree, roots, oldSize, size <= 64 || oldSize % 3 === 0),
      );
      expect(problems).toEqual([]);
    }
  });
});

describe('RFC 9162 proofs against the reference, random sizes up to 5,000', () => {
  const leaves = makeLeaves(5000, 'big');
  const random = seededRandom(5000);

  it('inclusion and consistency at 16 random sizes', () => {
    const sizes = [5000, 4096, 4097, 4095];
    while (sizes.length < 16) sizes.push(1 + random(5000));
    for (const size of sizes) {
      const tree = leaves.slice(0, size);
      const root = referenceRoot(tree);
      expect(hex(rfc9162Root(tree))).toBe(hex(root));
      const indices = [0, size - 1, random(size), random(size)];
      expect(indices.flatMap((index) => inclusionProblems(tree, root, index, true))).toEqual([]);
      const olds = [1, size - 1, 1 + random(size), 1 + random(size)].filter((m) => m <= size);
      const roots: Uint8Array[] = [];
      roots[size] = root;
      for (const m of olds) roots[m] = referenceRoot(tree.slice(0, m));
      expect(olds.flatMap((oldSize) => consistencyProblems(tree, roots, oldSize, true))).toEqual([]);
    }
  });
});

describe('RFC 9162 verification edge cases', () => {
  const leaves = makeLeaves(7);
  const root = rfc9162Root(leaves);
  const leaf = leaves[2] as Uint8Array;
  const proof = rfc9162InclusionProof(leaves, 2);

  it('a one-leaf tree: empty proof, root is the leaf', () => {
    const one = [leaf];
    expect(rfc9162InclusionProof(one, 0)).toEqual([]);
    expect(verifyRfc9162Inclusion(leaf, 0, 1, [], leaf)).toBe(true);
    expect(verifyRfc9162Inclusion(leaf, 0, 1, [leaf], leaf)).toBe(false);
  });

  it('rejects malformed arguments without throwing', () => {
    const bad: Array<[unknown, unknown, unknown, unknown, unknown]> = [
      [leaf, 2, 0, proof, root],
      [leaf, 7, 7, proof, root],
      [leaf, 2.5, 7, proof, root],
      [leaf, -1, 7, proof, root],
      [leaf, 2, Number.NaN, proof, root],
      [leaf, 2, 2 ** 60, proof, root],
      [leaf, 2, 7, null, root],
      [leaf, 2, 7, 'proof', root],
      [leaf, 2, 7, [...proof.slice(0, -1), new Uint8Array(31)], root],
      [leaf, 2, 7, [...proof.slice(0, -1), 'x'], root],
      [leaf.subarray(1), 2, 7, proof, root],
      [leaf, 2, 7, proof, new Uint8Array(33)],
      [undefined, 2, 7, proof, root],
      [leaf, 2, 7, proof, undefined],
    ];
    for (const [l, i, n, p, r] of bad) {
      expect(
        verifyRfc9162Inclusion(l as Uint8Array, i as number, n as number, p as Uint8Array[], r as Uint8Array),
      ).toBe(false);
    }
    const oldRoot = rfc9162Root(leaves.slice(0, 3));
    const cproof = rfc9162ConsistencyProof(leaves, 3);
    expect(verifyRfc9162Consistency(3, 7, oldRoot, root, cproof)).toBe(true);
    const badConsistency: Array<[unknown, unknown, unknown, unknown, unknown]> = [
      [7, 3, oldRoot, root, cproof],
      [-1, 7, oldRoot, root, cproof],
      [3, 7.5, oldRoot, root, cproof],
      [3, 7, oldRoot, root, null],
      [3, 7, oldRoot.subarray(0, 31), root, cproof],
      [3, 7, oldRoot, root, [...cproof.slice(0, -1), {}]],
      [3, 7, null, root, cproof],
    ];
    for (const [m, n, o, r, p] of badConsistency) {
      expect(
        verifyRfc9162Consistency(
          m as number,
          n as number,
          o as Uint8Array,
          r as Uint8Array,
          p as Uint8Array[],
        ),
      ).toBe(false);
    }
  });

  it('equal sizes need an empty proof and equal roots; old size 0 needs the empty root', () => {
    expect(verifyRfc9162Consistency(7, 7, root, root, [])).toBe(true);
    expect(verifyRfc9162Consistency(7, 7, root, flipBit(root), [])).toBe(false);
    expect(verifyRfc9162Consistency(7, 7, root, root, [root])).toBe(false);
    const empty = rfc9162Root([]);
    expect(verifyRfc9162Consistency(0, 7, empty, root, [])).toBe(true);
    expect(verifyRfc9162Consistency(0, 0, empty, empty, [])).toBe(true);
    expect(verifyRfc9162Consistency(0, 7, root, root, [])).toBe(false);
    expect(verifyRfc9162Consistency(0, 7, empty, root, [root])).toBe(false);
  });

  it('a very long proof is refused by its length, before any hashing', () => {
    const long = Array.from({ length: 100_000 }, () => root);
    expect(verifyRfc9162Inclusion(leaf, 2, 7, long, root)).toBe(false);
    expect(verifyRfc9162Consistency(3, 7, root, root, long)).toBe(false);
  });

  it('the generators throw a RangeError for positions outside the list (caller bug)', () => {
    expect(() => rfc9162InclusionProof(leaves, 7)).toThrow(RangeError);
    expect(() => rfc9162InclusionProof(leaves, -1)).toThrow(RangeError);
    expect(() => rfc9162InclusionProof([], 0)).toThrow(RangeError);
    expect(() => rfc9162ConsistencyProof(leaves, 8)).toThrow(RangeError);
    expect(() => rfc9162ConsistencyProof(leaves, 3, 8)).toThrow(RangeError);
    expect(() => rfc9162ConsistencyProof(leaves, 5, 4)).toThrow(RangeError);
  });

  it('consistency proofs can target an older size than the list holds', () => {
    const proof3to5 = rfc9162ConsistencyProof(leaves, 3, 5);
    expect(proof3to5).toEqual(rfc9162ConsistencyProof(leaves.slice(0, 5), 3));
    expect(
      verifyRfc9162Consistency(
        3,
        5,
        rfc9162Root(leaves.slice(0, 3)),
        rfc9162Root(leaves.slice(0, 5)),
        proof3to5,
      ),
    ).toBe(true);
  });

  it('root of a returned empty tree is a fresh copy', () => {
    const first = rfc9162Root([]);
    first.fill(0);
    expect(hex(rfc9162Root([]))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
