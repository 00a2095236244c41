// What the native backend's key lookup keeps alive between collections (P137). The engine hands the backend
// keys that are slices of Node's Buffer pool (decodeBase64StrictShared); the backend's by-array entries must
// not pin pool slabs, or each verification's slabs outlive V8's scavenges and only a mark-compact frees them:
// a verification thread under load then ran a mark-compact about once a second (P136).

import { generateKeyPairSync, sign } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ALGORITHM_SIZES } from './algorithms.ts';
import { createNativeBackend } from './native-backend.ts';

// A scavenge alone, on demand: `gc({ type: 'minor' })` of --expose-gc, which vitest's workers do not pass.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;

function ed25519Fixture() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = new Uint8Array(Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url'));
  const message = new Uint8Array([1, 2, 3]);
  return { raw, message, signature: new Uint8Array(sign(null, message, privateKey)) };
}

/**
 * V8 frees the memory of the ArrayBuffers a scavenge found dead on a background sweeper, after the collection
 * returns: read the count once that has had time to run (without this wait the test read 3.2 MB once in two).
 */
const sweptArrayBuffers = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('native backend: key lookup memory (P137)', () => {
  it('keeps no Node pool slab alive past a scavenge once a key array is dropped', async () => {
    const backend = createNativeBackend();
    const { raw, message, signature } = ed25519Fixture();
    expect(raw.length).toBe(ALGORITHM_SIZES.ed25519.publicKey);
    const verifyRounds = (rounds: number) => {
      for (let i = 0; i < rounds; i++) {
        // A fresh key array cut from the pool, as the engine's shared base64 decode hands it over; the
        // filler moves the pool on to a new slab, so each round's key sits in a slab of its own.
        const key = Buffer.from(raw);
        expect(backend.verify('ed25519', key, message, signature)).toBe(true);
        Buffer.allocUnsafe(4000);
        Buffer.allocUnsafe(4000);
      }
    };
    verifyRounds(50);
    gc({ type: 'major' });
    const before = process.memoryUsage().arrayBuffers;
    verifyRounds(400);
    // One scavenge: an entry whose key array died is still held through it (seen: 3.3 MB kept with pool
    // copies, 0.07 MB with own copies), and the engine's run promoted such memory to where only a
    // mark-compact frees it.
    gc({ type: 'minor' });
    await sweptArrayBuffers();
    const kept = process.memoryUsage().arrayBuffers - before;
    // 400 slabs of 8 KiB would be 3.2 MB; a few slabs (the pool's current one, the fixture's) are noise.
    expect(kept).toBeLessThan(256 * 1024);
  });

  it('an array rewritten in place with another key is not verified under the key it held before', () => {
    const backend = createNativeBackend();
    const first = ed25519Fixture();
    const second = ed25519Fixture();
    const key = Buffer.from(first.raw);
    expect(backend.verify('ed25519', key, first.message, first.signature)).toBe(true);
    key.set(second.raw);
    expect(backend.verify('ed25519', key, first.message, first.signature)).toBe(false);
    expect(backend.verify('ed25519', key, second.message, second.signature)).toBe(true);
  });
});
