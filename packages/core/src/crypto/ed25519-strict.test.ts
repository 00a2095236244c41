// Tests pinning the Ed25519 acceptance rule: canonical S, no small-order or non-canonical A or R, cofactorless.
// docs/architecture.md §2 "Crypto backends" (strict RFC 8032 in both backends, tested), PROTOCOL §4.3.

import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { bytesToBigIntLE, concatBytes, littleEndian32, toHex, utf8 } from './bytes.ts';
import {
  ED25519_L,
  ED25519_P,
  isAcceptablePointEncoding,
  isCanonicalScalar,
  SMALL_ORDER_POINT_ENCODINGS,
} from './ed25519-strict.ts';
import { createNativeBackend } from './native-backend.ts';
import { BACKENDS, otherBackend } from './test-vector-suite.ts';
import { hexToBytes } from './test-vectors.ts';

ed.hashes.sha512 = sha512;

/** Encoding with y replaced by y + p (only representable when y + p < 2^255). */
function nonCanonical(encoding: string): Uint8Array | undefined {
  const bytes = hexToBytes(encoding);
  const sign = bytes[31]! & 0x80;
  const high = Uint8Array.from(bytes);
  high[31] = high[31]! & 0x7f;
  const y = bytesToBigIntLE(high) + ED25519_P;
  if (y >= 2n ** 255n) return undefined;
  const out = littleEndian32(y);
  out[31] = out[31]! | sign;
  return out;
}

function flipSign(encoding: string): Uint8Array {
  const bytes = hexToBytes(encoding);
  bytes[31] = bytes[31]! ^ 0x80;
  return bytes;
}

/** A key whose secret scalar we know, to build signatures on which the equation itself holds. */
const seed = new Uint8Array(32).fill(7);
const { scalar: a, pointBytes: publicKey } = ed.utils.getExtendedPublicKey(seed);
const secretKey = concatBytes(seed, publicKey);
const challenge = (r: Uint8Array, pk: Uint8Array, m: Uint8Array) =>
  bytesToBigIntLE(sha512(concatBytes(r, pk, m))) % ED25519_L;
const order8 = ed.Point.fromBytes(hexToBytes(SMALL_ORDER_POINT_ENCODINGS[4]!));

describe('the small-order point list', () => {
  it('is exactly the 8-torsion subgroup, computed with curve arithmetic', () => {
    const computed = new Set<string>();
    for (let i = 0n; i < 8n; i++) computed.add(toHex(order8.multiply(i, false).toBytes()));
    expect(computed.size).toBe(8);
    expect(new Set(SMALL_ORDER_POINT_ENCODINGS)).toEqual(computed);
    for (const encoding of SMALL_ORDER_POINT_ENCODINGS) {
      expect(ed.Point.fromBytes(hexToBytes(encoding)).isSmallOrder()).toBe(true);
    }
  });

  it('refuses every small-order encoding, its sign-flipped form and its non-canonical y + p form', () => {
    let nonCanonicalForms = 0;
    for (const encoding of SMALL_ORDER_POINT_ENCODINGS) {
      expect(isAcceptablePointEncoding(hexToBytes(encoding)), encoding).toBe(false);
      expect(isAcceptablePointEncoding(flipSign(encoding)), `${encoding} sign-flipped`).toBe(false);
      const high = nonCanonical(encoding);
      if (high !== undefined) {
        nonCanonicalForms++;
        expect(isAcceptablePointEncoding(high), `${encoding} + p`).toBe(false);
      }
    }
    // y = 0 (two points) and y = 1 have y + p < 2^255; the others do not.
    expect(nonCanonicalForms).toBe(3);
  });

  it('refuses the non-canonical encoding of every point with y + p < 2^255, and accepts real keys', () => {
    for (let y = 2n; y < 19n; y++) {
      for (const sign of [0, 0x80]) {
        const canonical = littleEndian32(y);
        canonical[31] = canonical[31]! | sign;
        let isPoint = true;
        try {
          ed.Point.fromBytes(canonical);
        } catch {
          isPoint = false;
        }
        if (!isPoint) continue;
        const high = littleEndian32(y + ED25519_P);
        high[31] = high[31]! | sign;
        expect(isAcceptablePointEncoding(canonical)).toBe(true);
        expect(isAcceptablePointEncoding(high)).toBe(false);
      }
    }
    const native = createNativeBackend();
    for (let i = 0; i < 32; i++) {
      expect(isAcceptablePointEncoding(native.generateKeyPair('ed25519').publicKey)).toBe(true);
    }
  });

  it('accepts S only below L', () => {
    expect(isCanonicalScalar(littleEndian32(0n))).toBe(true);
    expect(isCanonicalScalar(littleEndian32(ED25519_L - 1n))).toBe(true);
    expect(isCanonicalScalar(littleEndian32(ED25519_L))).toBe(false);
    expect(isCanonicalScalar(littleEndian32(2n ** 256n - 1n))).toBe(false);
  });
});

describe('the byte-wise checks agree with the BigInt definitions', () => {
  const smallOrderY = new Set(
    SMALL_ORDER_POINT_ENCODINGS.map((h) => {
      const bytes = hexToBytes(h);
      bytes[31] = bytes[31]! & 0x7f;
      return bytesToBigIntLE(bytes);
    }),
  );
  const referencePoint = (encoding: Uint8Array) => {
    const bytes = Uint8Array.from(encoding);
    bytes[31] = bytes[31]! & 0x7f;
    const y = bytesToBigIntLE(bytes);
    return y < ED25519_P && !smallOrderY.has(y);
  };
  const referenceScalar = (scalar: Uint8Array) => bytesToBigIntLE(scalar) < ED25519_L;
  // Values next to every boundary (p, L, each small-order y, 2^255, 2^256), both signs, and random ones.
  const near = [0n, 1n, 2n, ED25519_P, ED25519_L, 2n ** 255n, 2n ** 256n - 1n, ...smallOrderY];
  const cases: Uint8Array[] = [];
  for (const v of near) {
    for (const d of [-2n, -1n, 0n, 1n, 2n]) {
      const n = v + d;
      if (n < 0n || n >= 2n ** 256n) continue;
      const bytes = littleEndian32(n);
      cases.push(bytes, flipSign(toHex(bytes)));
    }
  }
  for (let i = 0; i < 2000; i++) {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    // Push a quarter of them to the top of the range, where p and L sit.
    if (i % 4 === 0) bytes.fill(0xff, 1 + (i % 31));
    cases.push(bytes);
  }

  it('for points and scalars, on boundaries and random values', () => {
    for (const bytes of cases) {
      expect(isAcceptablePointEncoding(bytes), toHex(bytes)).toBe(referencePoint(bytes));
      expect(isCanonicalScalar(bytes), toHex(bytes)).toBe(referenceScalar(bytes));
    }
  });
});

describe('why the rule is pinned in our code: @noble/ed25519 verify({ zip215: false }) alone is looser than OpenSSL', () => {
  // If this canary starts failing, noble changed its rule; ours stays pinned either way.
  const message = utf8('canary');
  it('accepts a small-order R whose equation holds, and a mixed-order R (cofactored equation)', () => {
    const r = hexToBytes(SMALL_ORDER_POINT_ENCODINGS[0]!);
    const identityR = concatBytes(r, littleEndian32((challenge(r, publicKey, message) * a) % ED25519_L));
    expect(ed.verify(identityR, message, publicKey, { zip215: false })).toBe(true);
    const nonce = 99n;
    const mixed = ed.Point.BASE.multiply(nonce).add(order8).toBytes();
    const mixedR = concatBytes(
      mixed,
      littleEndian32((nonce + challenge(mixed, publicKey, message) * a) % ED25519_L),
    );
    expect(ed.verify(mixedR, message, publicKey, { zip215: false })).toBe(true);
    for (const [, backend] of BACKENDS) {
      expect(backend.verify('ed25519', publicKey, message, identityR)).toBe(false);
      expect(backend.verify('ed25519', publicKey, message, mixedR)).toBe(false);
    }
  });
});

describe.each(BACKENDS)('pinned Ed25519 rule: %s backend', (_name, backend) => {
  const other = otherBackend(backend);
  const message = utf8('strict rfc 8032');
  const signature = backend.sign('ed25519', secretKey, message);

  it('accepts the honest signature and refuses the same signature with S + L', () => {
    expect(backend.verify('ed25519', publicKey, message, signature)).toBe(true);
    const s = bytesToBigIntLE(signature.subarray(32));
    const malleated = concatBytes(signature.subarray(0, 32), littleEndian32(s + ED25519_L));
    expect(backend.verify('ed25519', publicKey, message, malleated)).toBe(false);
    expect(other.verify('ed25519', publicKey, message, malleated)).toBe(false);
  });

  it('refuses every small-order public key (R = identity, S = 0 binds nothing), in every encoding', () => {
    const trivial = concatBytes(hexToBytes(SMALL_ORDER_POINT_ENCODINGS[0]!), new Uint8Array(32));
    for (const encoding of SMALL_ORDER_POINT_ENCODINGS) {
      const forms = [hexToBytes(encoding), flipSign(encoding), nonCanonical(encoding)];
      for (const form of forms) {
        if (form === undefined) continue;
        for (const m of [message, utf8('any other message')]) {
          expect(backend.verify('ed25519', form, m, trivial), toHex(form)).toBe(false);
        }
      }
    }
  });

  it('refuses every small-order R even where the verification equation holds', () => {
    for (const encoding of SMALL_ORDER_POINT_ENCODINGS) {
      const r = hexToBytes(encoding);
      const forged = concatBytes(r, littleEndian32((challenge(r, publicKey, message) * a) % ED25519_L));
      expect(backend.verify('ed25519', publicKey, message, forged), encoding).toBe(false);
      const high = nonCanonical(encoding);
      if (high !== undefined) {
        const forgedHigh = concatBytes(
          high,
          littleEndian32((challenge(high, publicKey, message) * a) % ED25519_L),
        );
        expect(backend.verify('ed25519', publicKey, message, forgedHigh)).toBe(false);
      }
    }
  });

  it('gives the same verdict as the other backend for public keys with a small-order component', () => {
    // A' = a·B + T8 is not small-order, so the pre-check lets it through; both backends then use
    // the cofactorless equation, which holds exactly when k·T8 = 0, i.e. when 8 divides k.
    const mixedKey = ed.Point.BASE.multiply(a).add(order8).toBytes();
    let accepted = 0;
    let rejected = 0;
    for (let i = 0; i < 64 && (accepted < 2 || rejected < 2); i++) {
      const m = utf8(`mixed-order key ${i}`);
      const nonce = 1000n + BigInt(i);
      const r = ed.Point.BASE.multiply(nonce).toBytes();
      const k = challenge(r, mixedKey, m);
      const sig = concatBytes(r, littleEndian32((nonce + k * a) % ED25519_L));
      const verdict = backend.verify('ed25519', mixedKey, m, sig);
      expect(other.verify('ed25519', mixedKey, m, sig)).toBe(verdict);
      expect(verdict).toBe(k % 8n === 0n);
      if (verdict) accepted++;
      else rejected++;
    }
    expect(accepted).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
  });

  it('returns false, never throws, for wrong lengths', () => {
    for (const [pk, sig] of [
      [publicKey.subarray(0, 31), signature],
      [concatBytes(publicKey, Uint8Array.of(0)), signature],
      [publicKey, signature.subarray(0, 63)],
      [publicKey, concatBytes(signature, Uint8Array.of(0))],
      [new Uint8Array(0), new Uint8Array(0)],
    ] as const) {
      expect(backend.verify('ed25519', pk, message, sig)).toBe(false);
    }
  });
});
