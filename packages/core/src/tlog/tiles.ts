// C2SP tlog-tiles client side: tile paths, and RFC 9162 roots and proofs computed from hash tiles alone.
// Issue 18 item 1; c2sp.org/tlog-tiles (learnt from the spec, our own code); RFC 9162 §2.1; D18.

import { rfc9162NodeHash } from '../merkle/rfc9162.ts';
import {
  consistencyProofFromSubtrees,
  inclusionProofFromSubtrees,
  rootFromSubtrees,
  subtreesForConsistency,
  subtreesForInclusion,
  subtreesForRoot,
} from '../merkle/subtrees.ts';

/** Hashes per full tile; every tile level spans 8 tree levels. */
export const TILE_WIDTH = 256;
const TILE_HEIGHT = 8;
const HASH_SIZE = 32;

/** Returns the tile's bytes: `width` concatenated 32-byte hashes (width < 256 means the partial tile). */
export type TileFetcher = (level: number, index: number, width: number) => Promise<Uint8Array>;

/** The tile index as the spec writes it: 3-digit groups, every group but the last prefixed with `x`. */
export function encodeTileIndex(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`tile index ${index} is invalid`);
  const groups: string[] = [];
  let rest = index;
  do {
    groups.unshift(String(rest % 1000).padStart(3, '0'));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  return groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join('/');
}

/** `tile/<L>/<N>[.p/<W>]`, or `tile/entries/<N>[.p/<W>]` for level 'entries'. */
export function tilePath(level: number | 'entries', index: number, width: number = TILE_WIDTH): string {
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH)
    throw new RangeError(`width ${width} is invalid`);
  const partial = width < TILE_WIDTH ? `.p/${width}` : '';
  return `tile/${level}/${encodeTileIndex(index)}${partial}`;
}

/** How many hashes tile (level, index) holds in a tree of treeSize leaves (0 when it does not exist yet). */
export function tileWidth(level: number, index: number, treeSize: number): number {
  const atLevel = Math.floor(treeSize / TILE_WIDTH ** level);
  return Math.max(0, Math.min(TILE_WIDTH, atLevel - index * TILE_WIDTH));
}

/**
 * Reads every perfect subtree in `coordinates` from the tiles of a treeSize tree: node (h, i) is the fold of
 * 2^(h mod 8) consecutive hashes of tile level floor(h/8), which always sit in one tile.
 */
async function readSubtrees(
  coordinates: readonly { level: number; index: number }[],
  treeSize: number,
  fetchTile: TileFetcher,
): Promise<(level: number, index: number) => Uint8Array> {
  const tiles = new Map<string, Promise<Uint8Array>>();
  const nodes = new Map<string, Uint8Array>();
  // Every tile is requested before any is awaited: the fetches run in parallel.
  const tileOf = (level: number, index: number) => {
    const tileLevel = Math.floor(level / TILE_HEIGHT);
    const tileIndex = Math.floor((index * 2 ** (level % TILE_HEIGHT)) / TILE_WIDTH);
    return { tileLevel, tileIndex, width: tileWidth(tileLevel, tileIndex, treeSize) };
  };
  for (const { level, index } of coordinates) {
    const { tileLevel, tileIndex, width } = tileOf(level, index);
    const key = `${tileLevel}/${tileIndex}/${width}`;
    if (!tiles.has(key)) {
      const pending = fetchTile(tileLevel, tileIndex, width);
      pending.catch(() => undefined); // awaited below; avoids an unhandled rejection meanwhile
      tiles.set(key, pending);
    }
  }
  for (const { level, index } of coordinates) {
    const tileLevel = Math.floor(level / TILE_HEIGHT);
    const span = 2 ** (level % TILE_HEIGHT);
    const first = index * span;
    const tileIndex = Math.floor(first / TILE_WIDTH);
    const width = tileWidth(tileLevel, tileIndex, treeSize);
    const key = `${tileLevel}/${tileIndex}/${width}`;
    let tile = tiles.get(key);
    if (tile === undefined) {
      tile = fetchTile(tileLevel, tileIndex, width);
      tiles.set(key, tile);
    }
    const bytes = await tile;
    if (bytes.length !== width * HASH_SIZE) {
      throw new Error(
        `tile ${tilePath(tileLevel, tileIndex, width)} has ${bytes.length} bytes, not ${width * HASH_SIZE}`,
      );
    }
    let row: Uint8Array[] = [];
    for (let i = first - tileIndex * TILE_WIDTH; row.length < span; i++) {
      row.push(new Uint8Array(bytes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE)));
    }
    while (row.length > 1) {
      const next: Uint8Array[] = [];
      for (let i = 0; i < row.length; i += 2)
        next.push(rfc9162NodeHash(row[i] as Uint8Array, row[i + 1] as Uint8Array));
      row = next;
    }
    nodes.set(`${level}/${index}`, row[0] as Uint8Array);
  }
  return (level, index) => {
    const node = nodes.get(`${level}/${index}`);
    if (node === undefined) throw new Error(`subtree ${level}/${index} was not read`);
    return node;
  };
}

/** RFC 9162 root of the first treeSize leaves, from tiles alone (compare it with a signed checkpoint). */
export async function rootFromTiles(treeSize: number, fetchTile: TileFetcher): Promise<Uint8Array> {
  const read = await readSubtrees(subtreesForRoot(treeSize), treeSize, fetchTile);
  return rootFromSubtrees(treeSize, read);
}

/** The leaf hash at index and its RFC 9162 inclusion proof in a treeSize tree, from tiles alone. */
export async function inclusionProofFromTiles(
  index: number,
  treeSize: number,
  fetchTile: TileFetcher,
): Promise<{ leafHash: Uint8Array; proof: Uint8Array[] }> {
  const read = await readSubtrees(
    [{ level: 0, index }, ...subtreesForInclusion(index, treeSize)],
    treeSize,
    fetchTile,
  );
  return { leafHash: read(0, index), proof: inclusionProofFromSubtrees(index, treeSize, read) };
}

/** The RFC 9162 consistency proof from oldSize to newSize, from the tiles of the newSize tree alone. */
export async function consistencyProofFromTiles(
  oldSize: number,
  newSize: number,
  fetchTile: TileFetcher,
): Promise<Uint8Array[]> {
  const read = await readSubtrees(subtreesForConsistency(oldSize, newSize), newSize, fetchTile);
  return consistencyProofFromSubtrees(oldSize, newSize, read);
}
