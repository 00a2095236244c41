// deriveKid is SHA-256 over UTF8(alg) ‖ 0x00 ‖ key, whatever the lengths and order of the calls: written for
// a version that reused one buffer for that input (P133, measured and not kept), kept for any that does.
// PROTOCOL §4.4, DECISIONS D8.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveKid } from './kid.ts';

function referenceKid(alg: string, publicKey: Uint8Array): string {
  return createHash('sha256')
    .update(new TextEncoder().encode(alg))
    .update(Uint8Array.of(0))
    .update(publicKey)
    .digest('hex')
    .slice(0, 32);
}

describe('deriveKid', () => {
  it('matches SHA-256 over a fresh UTF8(alg) ‖ 0x00 ‖ key, long after short and short after long', () => {
    let state = 133;
    const random = () => {
      state = (state * 1664525 + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
    const algs = [
      'ed25519',
      'ml-dsa-65',
      'ml-dsa-87',
      'slh-dsa-sha2-128s',
      '',
      'é-alg',
      '鍵',
      'x'.repeat(300),
    ];
    // Around the reused buffer's 4,096 bytes too, where the fresh array takes over.
    const sizes = [0, 1, 32, 1952, 2592, 4000, 4094, 4095, 4096, 5000];
    for (let round = 0; round < 300; round++) {
      const alg = algs[Math.floor(random() * algs.length)] as string;
      const size =
        round % 3 === 0
          ? Math.floor(random() * 4200)
          : (sizes[Math.floor(random() * sizes.length)] as number);
      const key = Uint8Array.from({ length: size }, () => Math.floor(random() * 256));
      expect(deriveKid(alg, key)).toBe(referenceKid(alg, key));
    }
  });

  it('hashes a key that is a view into a larger buffer by its own bytes only', () => {
    const backing = Uint8Array.from({ length: 100 }, (_, i) => i);
    const key = backing.subarray(10, 42);
    expect(deriveKid('ed25519', key)).toBe(referenceKid('ed25519', Uint8Array.from(key)));
  });
});
