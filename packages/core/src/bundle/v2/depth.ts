// Whether a V2 signed bundle has a bundle hash at all: jcs({bundle, signature}) within the depth limit (P219).
// DECISIONS D2 (an over-deep document, depth > 64, is a verification failure with a code); PROTOCOL §8.3.
import { type CanonicalMemo, MAX_CANONICAL_DEPTH } from '../../canonical/index.ts';

/**
 * True when `{bundle, signature}` nests no deeper than MAX_CANONICAL_DEPTH (the wrapper being depth 1), the depth
 * dcp-jcs-v1 writes under D2. Each part `memo` already wrote counts by its remembered height, without walking it
 * again; the rest (the bundle and signature objects, envelopes, checkpoints, members no signature covers) is
 * walked by containers only, strings are not read. A container met again no deeper than before is not walked
 * again, so shared or cyclic values end (a cycle ends as too deep).
 */
export function signedBundleFitsDepth(bundle: unknown, signature: unknown, memo: CanonicalMemo): boolean {
  const deepestSeen = new Map<object, number>();
  const stack: Array<[unknown, number]> = [
    [bundle, 2],
    [signature, 2],
  ];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_CANONICAL_DEPTH) return false;
    const known = memo.reusable(value, 0);
    if (known !== undefined) {
      if (depth + known.height > MAX_CANONICAL_DEPTH) return false;
      continue;
    }
    const seen = deepestSeen.get(value);
    if (seen !== undefined && seen >= depth) continue;
    deepestSeen.set(value, depth);
    const members: unknown[] = Array.isArray(value) ? value : Object.values(value);
    for (let i = 0; i < members.length; i++) stack.push([members[i], depth + 1]);
  }
  return true;
}
