// The benches' one recorder of a bundle's signature calls (engine-share.ts, run.ts): it must see every
// call the engine makes, as made, and must not change what the engine is told.
import { buildSignedBundle, type CryptoBackend, createVerifier, selectCryptoBackend } from '@proto/core';
import { describe, expect, it } from 'vitest';
import { callCounts, recordingBackend } from './engine-cases.ts';

const real = selectCryptoBackend('auto');
const request = {
  signed_bundle: buildSignedBundle({ tier: 'elevated', entries: 2, backend: real }).signed_bundle,
};

function verifyWith(backend: CryptoBackend) {
  const verifier = createVerifier({ mode: 'hybrid_preferred', backend });
  if (!verifier.ok) throw new Error(verifier.error.message);
  return verifier.value.verify(request);
}

describe('recordingBackend', () => {
  it("records each of the bundle's verify() calls, which replay to the same answers", () => {
    const seen: string[] = [];
    const { backend, calls } = recordingBackend({
      ...real,
      verify: (alg, publicKey, message, signature) => {
        seen.push(alg);
        return real.verify(alg, publicKey, message, signature);
      },
    });
    expect(verifyWith(backend).verified).toBe(true);
    expect(calls.map((c) => c.alg)).toEqual(seen);
    expect(new Set(seen)).toEqual(new Set(['ed25519', 'ml-dsa-65']));
    for (const c of calls) expect(real.verify(c.alg, c.publicKey, c.message, c.signature)).toBe(true);
    const counts = callCounts(calls);
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(calls.length);
    expect(counts.get('ed25519')).toBe(seen.filter((alg) => alg === 'ed25519').length);
  });

  it("passes the inner backend's answer through", () => {
    const { backend, calls } = recordingBackend({ ...real, verify: () => false });
    expect(verifyWith(backend).verified).toBe(false);
    expect(calls.length).toBeGreaterThan(0);
  });
});
