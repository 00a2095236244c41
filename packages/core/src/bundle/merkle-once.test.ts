// P89: the audit Merkle roots of a V2 bundle are computed once per family and verification: the manifest's
// roots and a checkpoint covering every entry are the same roots. Observed at node:crypto itself: every
// digest of exactly two digests (a Merkle node, PROTOCOL §2.2) is counted.
import { describe, expect, it, vi } from 'vitest';

const nodeDigests = vi.hoisted(() => new Map<string, number>());

vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  const hash: typeof real.hash = ((alg: string, data: never, encoding?: never) => {
    const size =
      typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : (data as ArrayBufferView).byteLength;
    if (size === 64) nodeDigests.set(alg, (nodeDigests.get(alg) ?? 0) + 1);
    return real.hash(alg, data, encoding);
  }) as typeof real.hash;
  return { ...real, hash };
});

const { buildSignedBundle } = await import('./build/index.ts');
const { makeVerifier } = await import('./test-support.ts');

/** Nodes of the protocol tree over n leaves: each level pairs its nodes, an odd last one with itself. */
function nodesOf(leaves: number): number {
  let nodes = 0;
  for (let width = leaves; width > 1; width = Math.ceil(width / 2)) nodes += Math.ceil(width / 2);
  return nodes;
}

describe('each audit Merkle node is hashed once per verification (P89)', () => {
  const verifier = makeVerifier();
  for (const entries of [1, 5, 10]) {
    it(`routine, ${entries} entries, one checkpoint over all of them`, () => {
      const built = buildSignedBundle({ tier: 'routine', entries });
      const checkpoints = built.signed_bundle['bundle'] as { pq_checkpoints: unknown[] };
      expect(checkpoints.pq_checkpoints).toHaveLength(1);
      nodeDigests.clear();
      const analysis = verifier.analyze({ signed_bundle: built.signed_bundle });
      expect(analysis.checks).toMatchObject({ manifest_integrity: 'pass', checkpoints: 'pass' });
      expect(analysis.checkpointsVerified).toBe(1);
      expect(Object.fromEntries(nodeDigests)).toEqual(
        entries === 1 ? {} : { sha256: nodesOf(entries), 'sha3-256': nodesOf(entries) },
      );
    });
  }
});
