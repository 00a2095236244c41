// Roots and proofs of the stored tree: each answer reads the O(log n) perfect-subtree nodes it needs, never the tree.
// DECISIONS D18 (inclusion and consistency proofs, optional tree_size), RFC 9162 §2.1.

import {
  consistencyProofFromSubtrees,
  inclusionProofFromSubtrees,
  rootFromSubtrees,
  type SubtreeCoordinate,
  subtreesForConsistency,
  subtreesForInclusion,
  subtreesForRoot,
} from '@proto/core';
import { type LogRepository, logNodeKey, logNodeReader } from '@proto/store';

/**
 * Stored nodes never change once written, so caching them is always correct, on one instance or
 * many. Only nodes of level ≥ `minLevel` are kept: they are few (n / 2^level) and every proof of
 * their range reads them, while leaf-side nodes are read about once. When full, the cache starts
 * over (no per-hit bookkeeping: a hit is one Map lookup).
 */
export class NodeCache {
  readonly #repository: LogRepository;
  readonly #max: number;
  readonly #minLevel: number;
  readonly #entries = new Map<string, Uint8Array>();

  constructor(repository: LogRepository, maxEntries: number, minLevel = 4) {
    this.#repository = repository;
    this.#max = maxEntries;
    this.#minLevel = minLevel;
  }

  async read(coordinates: readonly SubtreeCoordinate[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    const missing: SubtreeCoordinate[] = [];
    for (const c of coordinates) {
      const key = logNodeKey(c.level, c.index);
      const hash = c.level >= this.#minLevel ? this.#entries.get(key) : undefined;
      if (hash === undefined) missing.push(c);
      else found.set(key, hash);
    }
    if (missing.length === 0) return found;
    const loaded = await this.#repository.nodes(missing);
    for (const [key, hash] of loaded) found.set(key, hash);
    if (this.#max > 0) {
      for (const c of missing) {
        if (c.level < this.#minLevel) continue;
        const key = logNodeKey(c.level, c.index);
        const hash = loaded.get(key);
        if (hash === undefined) continue;
        if (this.#entries.size >= this.#max) this.#entries.clear();
        // A copy: the driver's hash is a view into a buffer of the whole result (64 KB on PostgreSQL),
        // which a cached view would keep alive (the soak's external memory grew ~15 MB/min).
        this.#entries.set(key, new Uint8Array(hash));
      }
    }
    return found;
  }
}

export interface InclusionAnswer {
  readonly leafHash: Uint8Array;
  readonly proof: Uint8Array[];
  readonly root: Uint8Array;
}

export async function inclusionAnswer(
  nodes: NodeCache,
  index: number,
  treeSize: number,
): Promise<InclusionAnswer> {
  const read = logNodeReader(
    await nodes.read([
      { level: 0, index },
      ...subtreesForInclusion(index, treeSize),
      ...subtreesForRoot(treeSize),
    ]),
  );
  return {
    leafHash: read(0, index),
    proof: inclusionProofFromSubtrees(index, treeSize, read),
    root: rootFromSubtrees(treeSize, read),
  };
}

export interface ConsistencyAnswer {
  readonly proof: Uint8Array[];
  readonly firstRoot: Uint8Array;
  readonly secondRoot: Uint8Array;
}

export async function consistencyAnswer(
  nodes: NodeCache,
  first: number,
  second: number,
): Promise<ConsistencyAnswer> {
  const read = logNodeReader(
    await nodes.read([
      ...subtreesForConsistency(first, second),
      ...subtreesForRoot(first),
      ...subtreesForRoot(second),
    ]),
  );
  return {
    proof: consistencyProofFromSubtrees(first, second, read),
    firstRoot: rootFromSubtrees(first, read),
    secondRoot: rootFromSubtrees(second, read),
  };
}

export async function rootAt(nodes: NodeCache, treeSize: number): Promise<Uint8Array> {
  return rootFromSubtrees(treeSize, logNodeReader(await nodes.read(subtreesForRoot(treeSize))));
}
