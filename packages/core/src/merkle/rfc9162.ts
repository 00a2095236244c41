// RFC 9162 (Certificate Transparency v2) Merkle tree over in-memory leaf hashes: roots, proofs and their verification.
// RFC 9162 §2.1; DECISIONS D4 (log and anchor batches only, never bundle audit roots), D18, D19.
import { createHash } from 'node:crypto';
import { bytesEqual } from '../encoding/index.ts';
import {
  consistencyRanges,
  inclusionRanges,
  isCount,
  isPowerOfTwo,
  type LeafRange,
  splitPoint,
} from './tree-shape.ts';

const LEAF_PREFIX = new Uint8Array([0x00]);
const NODE_PREFIX = new Uint8Array([0x01]);
const DIGEST_LENGTH = 32;

function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

/** MTH({}) = SHA-256 of the empty string. */
const EMPTY_ROOT: Uint8Array = sha256();

/** A fresh copy of MTH({}), so no caller can alter the shared constant. */
export function rfc9162EmptyRoot(): Uint8Array {
  return EMPTY_ROOT.slice();
}

/** SHA-256(0x00 ‖ data): the leaf's domain-separation byte keeps leaves from posing as nodes. */
export function rfc9162LeafHash(data: Uint8Array): Uint8Array {
  return sha256(LEAF_PREFIX, data);
}

/** SHA-256(0x01 ‖ left ‖ right). */
export function rfc9162NodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(NODE_PREFIX, left, right);
}

/** MTH(D[start:end]) from the leaf hashes, splitting at the largest power of two below the length. */
function rangeHash(leafHashes: readonly Uint8Array[], start: number, end: number): Uint8Array {
  if (end - start === 1) return leafHashes[start] as Uint8Array;
  const mid = start + splitPoint(end - start);
  return rfc9162NodeHash(rangeHash(leafHashes, start, mid), rangeHash(leafHashes, mid, end));
}

function rangeHashes(leafHashes: readonly Uint8Array[], ranges: readonly LeafRange[]): Uint8Array[] {
  return ranges.map((range) => rangeHash(leafHashes, range.start, range.end));
}

/** MTH of the whole list; the empty tree's root for an empty list. */
export function rfc9162Root(leafHashes: readonly Uint8Array[]): Uint8Array {
  return leafHashes.length === 0 ? rfc9162EmptyRoot() : rangeHash(leafHashes, 0, leafHashes.length);
}

/**
 * PATH(index, D[n]) for n = leafHashes.length, sibling nearest the leaf first. An index outside the
 * tree is a caller bug (the caller owns the list), so it throws a RangeError.
 */
export function rfc9162InclusionProof(leafHashes: readonly Uint8Array[], index: number): Uint8Array[] {
  const size = leafHashes.length;
  if (!isCount(index) || index >= size) {
    throw new RangeError(`leaf index ${index} is outside a tree of size ${size}`);
  }
  return rangeHashes(leafHashes, inclusionRanges(index, size));
}

/**
 * PROOF(oldSize, D[0:newSize]) with newSize defaulting to the whole list; empty when oldSize is 0
 * or equal to newSize (nothing to prove). Sizes out of order or beyond the list throw a RangeError.
 */
export function rfc9162ConsistencyProof(
  leafHashes: readonly Uint8Array[],
  oldSize: number,
  newSize: number = leafHashes.length,
): Uint8Array[] {
  if (!isCount(oldSize) || !isCount(newSize) || oldSize > newSize || newSize > leafHashes.length) {
    throw new RangeError(
      `no consistency proof from size ${oldSize} to ${newSize} over ${leafHashes.length} leaves`,
    );
  }
  if (oldSize === 0 || oldSize === newSize) return [];
  return rangeHashes(leafHashes, consistencyRanges(oldSize, newSize));
}

function isDigest(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.byteLength === DIGEST_LENGTH;
}

function isDigestList(value: unknown, expectedLength: number): value is readonly Uint8Array[] {
  if (!Array.isArray(value) || value.length !== expectedLength) return false;
  for (const item of value) if (!isDigest(item)) return false;
  return true;
}

const isOdd = (n: number): boolean => n % 2 === 1;
const half = (n: number): number => Math.floor(n / 2);

/**
 * RFC 9162 §2.1.3.2. The proof must have exactly the length PATH(index, D[treeSize]) has, and every
 * hash must be 32 bytes. Any malformed argument gives false; never throws.
 */
export function verifyRfc9162Inclusion(
  leafHash: Uint8Array,
  index: number,
  treeSize: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  try {
    if (!isCount(index) || !isCount(treeSize) || index >= treeSize) return false;
    if (!isDigest(leafHash) || !isDigest(root)) return false;
    if (!isDigestList(proof, inclusionRanges(index, treeSize).length)) return false;
    let fn = index;
    let sn = treeSize - 1;
    let r = leafHash;
    for (const p of proof) {
      if (sn === 0) return false;
      if (isOdd(fn) || fn === sn) {
        r = rfc9162NodeHash(p, r);
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      } else {
        r = rfc9162NodeHash(r, p);
      }
      fn = half(fn);
      sn = half(sn);
    }
    return sn === 0 && bytesEqual(r, root);
  } catch {
    return false;
  }
}

/**
 * RFC 9162 §2.1.4.2, with the proof length fixed by the two sizes. Beyond the RFC's 0 < old < new:
 * equal sizes need an empty proof and equal roots; old size 0 needs an empty proof and `oldRoot`
 * equal to the empty tree's root. Any malformed argument gives false; never throws.
 */
export function verifyRfc9162Consistency(
  oldSize: number,
  newSize: number,
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  try {
    if (!isCount(oldSize) || !isCount(newSize) || oldSize > newSize) return false;
    if (!isDigest(oldRoot) || !isDigest(newRoot)) return false;
    if (oldSize === newSize) return isDigestList(proof, 0) && bytesEqual(oldRoot, newRoot);
    if (oldSize === 0) return isDigestList(proof, 0) && bytesEqual(oldRoot, EMPTY_ROOT);
    if (!isDigestList(proof, consistencyRanges(oldSize, newSize).length) || proof.length === 0) return false;
    // Step 2: when the old tree is a perfect subtree its root is the path's implicit first element.
    const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : [...proof];
    let fn = oldSize - 1;
    let sn = newSize - 1;
    while (isOdd(fn)) {
      fn = half(fn);
      sn = half(sn);
    }
    let fr = path[0] as Uint8Array;
    let sr = fr;
    for (let i = 1; i < path.length; i++) {
      const c = path[i] as Uint8Array;
      if (sn === 0) return false;
      if (isOdd(fn) || fn === sn) {
        fr = rfc9162NodeHash(c, fr);
        sr = rfc9162NodeHash(c, sr);
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      } else {
        sr = rfc9162NodeHash(sr, c);
      }
      fn = half(fn);
      sn = half(sn);
    }
    return sn === 0 && bytesEqual(fr, oldRoot) && bytesEqual(sr, newRoot);
  } catch {
    return false;
  }
}
