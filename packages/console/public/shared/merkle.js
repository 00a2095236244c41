// RFC 9162 §2.1.3.2 inclusion-proof verification in the browser, keeping every step for the drawing.
// Issue 17 item 2: the log explorer and the verify page check inclusion themselves (SHA-256 via WebCrypto).
import { concat, equalBytes, sha256 } from './bytes.js';

export async function leafHash(leafInput) {
  return sha256(concat(Uint8Array.of(0), leafInput));
}

async function nodeHash(left, right) {
  return sha256(concat(Uint8Array.of(1), left, right));
}

/**
 * Climbs from the leaf hash with the proof's siblings. Returns {ok, reason, computedRoot, steps}; each
 * step says which side the sibling sits on and the hash it produced, so the page can draw the climb.
 */
export async function verifyInclusion({ index, treeSize, leaf, proof, root }) {
  const steps = [];
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(treeSize) || index < 0 || index >= treeSize) {
    return { ok: false, reason: `index ${index} is not inside a tree of size ${treeSize}`, steps };
  }
  let fn = index;
  let sn = treeSize - 1;
  let r = leaf;
  for (const sibling of proof) {
    if (sn === 0) return { ok: false, reason: 'the proof is longer than the tree is high', steps };
    const level = steps.length;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(sibling, r);
      steps.push({ level, sibling, side: 'left', hash: r });
      if (fn % 2 === 0) {
        // RFC 9162: a right-edge node without a sibling at this level is carried up unchanged.
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = await nodeHash(r, sibling);
      steps.push({ level, sibling, side: 'right', hash: r });
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) return { ok: false, reason: 'the proof is too short for this tree', computedRoot: r, steps };
  if (!equalBytes(r, root)) {
    return {
      ok: false,
      reason: 'the computed root differs from the checkpoint root',
      computedRoot: r,
      steps,
    };
  }
  return { ok: true, reason: 'the leaf climbs to the signed root', computedRoot: r, steps };
}
