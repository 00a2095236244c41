// digestPair (a Merkle node's H(left ‖ right) through one reused buffer) equals hashing the concatenation.
import { describe, expect, it } from 'vitest';
import { concatBytes } from '../encoding/index.ts';
import { digest, digestPair, HASH_ALGS } from './index.ts';

const bytes = (length: number, seed: number) => Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff);

describe('digestPair', () => {
  it('equals digest(left ‖ right) for node-sized, short, empty and longer inputs', () => {
    for (const alg of HASH_ALGS) {
      for (const [l, r] of [
        [32, 32],
        [0, 0],
        [1, 5],
        [32, 0],
        [40, 30],
        [64, 64],
        [100, 3],
      ] as const) {
        const left = bytes(l, 1);
        const right = bytes(r, 2);
        expect(digestPair(alg, left, right)).toEqual(digest(alg, concatBytes(left, right)));
      }
    }
  });

  it('a node paired with itself, and results fed back in, are never overwritten by the next call', () => {
    const leaf = bytes(32, 7);
    const first = digestPair('sha256', leaf, leaf);
    const copy = Uint8Array.from(first);
    const second = digestPair('sha256', first, first);
    expect(first).toEqual(copy);
    expect(second).toEqual(digest('sha256', concatBytes(copy, copy)));
    expect(digestPair('sha256', second.subarray(0, 16), first)).toEqual(
      digest('sha256', concatBytes(second.subarray(0, 16), first)),
    );
  });
});
