// The tlog-tiles client against the spec's path rules and the RFC 9162 reference of @proto/testing.
// Issue 18 item 1: proofs for a 1 M-leaf log from tiles alone; tiles are built here from the reference MTH.
import { hash } from 'node:crypto';
import {
  referenceConsistency,
  referenceLeafHashes,
  referencePath,
  referenceRangeRoot,
  referenceRoot,
} from '@proto/testing';
import { describe, expect, it } from 'vitest';
import {
  consistencyProofFromTiles,
  encodeTileIndex,
  inclusionProofFromTiles,
  rootFromTiles,
  type TileFetcher,
  tilePath,
  tileWidth,
} from './tiles.ts';

/**
 * Level-L tile hashes are MTH of each aligned run of 256^L leaves (the spec's definition), via the reference. The
 * runs are taken on `leafHashes` itself, not copies, so the reference hashes each subtree once for the tiles and the
 * root (P104: the copies made the 1 M-leaf test hash the tree three times).
 */
function referenceTiles(leafHashes: readonly Uint8Array[]): { fetch: TileFetcher; asked: string[] } {
  const levels: Uint8Array[] = [];
  for (let level = 0; 256 ** level <= leafHashes.length; level++) {
    const span = 256 ** level;
    const count = Math.floor(leafHashes.length / span);
    const bytes = new Uint8Array(count * 32);
    for (let i = 0; i < count; i++) {
      const tile = level === 0 ? leafHashes[i] : referenceRangeRoot(leafHashes, i * span, (i + 1) * span);
      bytes.set(tile as Uint8Array, i * 32);
    }
    levels.push(bytes);
  }
  const asked: string[] = [];
  const fetch: TileFetcher = async (level, index, width) => {
    asked.push(tilePath(level, index, width));
    const row = levels[level];
    if (row === undefined) throw new Error(`no tile level ${level}`);
    const available = Math.min(256, row.length / 32 - index * 256);
    // A client that asks for a width the tree does not have is wrong: the server would 404 it.
    if (width !== available)
      throw new Error(`asked ${tilePath(level, index, width)}, tree has width ${available}`);
    return row.slice(index * 256 * 32, (index * 256 + width) * 32);
  };
  return { fetch, asked };
}

function leaves(count: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) out.push(hash('sha256', `bundle ${i}`, 'buffer'));
  return out;
}

describe('tlog-tiles paths', () => {
  it('encodes N in x-prefixed 3-digit groups, and partial tiles as .p/W', () => {
    expect(encodeTileIndex(0)).toBe('000');
    expect(encodeTileIndex(999)).toBe('999');
    expect(encodeTileIndex(1000)).toBe('x001/000');
    expect(encodeTileIndex(1234067)).toBe('x001/x234/067');
    expect(tilePath(0, 1234067)).toBe('tile/0/x001/x234/067');
    expect(tilePath(1, 1234067, 8)).toBe('tile/1/x001/x234/067.p/8');
    expect(tilePath('entries', 1234067)).toBe('tile/entries/x001/x234/067');
    expect(tilePath('entries', 5, 255)).toBe('tile/entries/005.p/255');
    expect(() => tilePath(0, 1, 0)).toThrow(RangeError);
    expect(() => tilePath(0, 1, 257)).toThrow(RangeError);
    expect(() => encodeTileIndex(-1)).toThrow(RangeError);
  });
});

describe('tlog-tiles widths (the spec examples)', () => {
  it('a 70,000-leaf tree: 273 full level-0 tiles, widths 112, 256, 17 and 1', () => {
    expect(tileWidth(0, 272, 70_000)).toBe(256);
    expect(tileWidth(0, 273, 70_000)).toBe(112);
    expect(tileWidth(0, 274, 70_000)).toBe(0);
    expect(tileWidth(1, 0, 70_000)).toBe(256);
    expect(tileWidth(1, 1, 70_000)).toBe(17);
    expect(tileWidth(2, 0, 70_000)).toBe(1);
    expect(tileWidth(3, 0, 70_000)).toBe(0);
  });
  it('a 256-leaf tree: one full level-0 tile and a level-1 tile of width 1', () => {
    expect(tileWidth(0, 0, 256)).toBe(256);
    expect(tileWidth(0, 1, 256)).toBe(0);
    expect(tileWidth(1, 0, 256)).toBe(1);
  });
});

describe('proofs from tiles', () => {
  it('matches the RFC 9162 reference for every index and size up to 600 leaves (full and partial tiles)', async () => {
    const all = referenceLeafHashes(leaves(600).map((l) => l));
    for (const size of [1, 2, 255, 256, 257, 511, 512, 513, 600]) {
      const tree = all.slice(0, size);
      const { fetch } = referenceTiles(tree);
      expect(await rootFromTiles(size, fetch)).toEqual(referenceRoot(tree));
      for (let index = 0; index < size; index += size > 300 ? 37 : 1) {
        const answer = await inclusionProofFromTiles(index, size, fetch);
        expect(answer.leafHash).toEqual(tree[index]);
        expect(answer.proof).toEqual(referencePath(index, tree));
      }
      for (let old = 0; old <= size; old += size > 300 ? 41 : 1) {
        expect(await consistencyProofFromTiles(old, size, fetch)).toEqual(referenceConsistency(old, tree));
      }
    }
  });

  it('proves inclusion and consistency in a 1 M-leaf log from tiles alone', {
    timeout: 120_000,
  }, async () => {
    const size = 1_000_000;
    const tree = referenceLeafHashes(leaves(size));
    const { fetch, asked } = referenceTiles(tree);
    const root = referenceRoot(tree);
    expect(await rootFromTiles(size, fetch)).toEqual(root);
    for (const index of [0, 123_456, 999_999]) {
      const answer = await inclusionProofFromTiles(index, size, fetch);
      expect(answer.leafHash).toEqual(tree[index]);
      expect(answer.proof).toEqual(referencePath(index, tree));
    }
    expect(await consistencyProofFromTiles(700_001, size, fetch)).toEqual(
      referenceConsistency(700_001, tree),
    );
    // The last level-0 tile of 1 000 000 leaves is partial: 1 000 000 = 3906 * 256 + 64.
    expect(asked).toContain('tile/0/x003/906.p/64');
  });
});
