// The pinned Ed25519 acceptance rule, checked before any curve arithmetic in BOTH backends.
// docs/architecture.md §2 "Crypto backends" (strict RFC 8032: canonical S, no small-order keys), PROTOCOL §4.3.

import { bytesToBigIntLE, littleEndian32 } from './bytes.ts';

// Why an explicit pre-check, shared by both backends:
//
// RFC 8032 §5.1.7 lets a verifier use either the cofactored ([8][S]B = [8]R + [8][k]A) or the
// cofactorless ([S]B = R + [k]A) equation, and says nothing about small-order points. Libraries
// therefore disagree on edge cases ("Taming the many EdDSAs", Chalkias et al. 2020), and two
// verifiers that disagree on one signature is exactly what a verification service must not have.
// Measured on Node 24.21 / OpenSSL 3.5 (node:crypto) and @noble/ed25519 3.2 with { zip215: false }:
//   - S ≥ L:                          both reject.
//   - small-order public key A:       both reject.
//   - non-canonical A (y ≥ p):        both reject.
//   - small-order R (all 8 points):   OpenSSL rejects; noble ACCEPTS (it only checks A).
//   - R or A with a small-order component (mixed order): OpenSSL uses the cofactorless equation
//     and rejects 7 times in 8; noble uses the cofactored one and accepts.
// So the rule is pinned here (reject S ≥ L, reject non-canonical or small-order A and R) and the
// noble backend evaluates the cofactorless equation itself (see noble-backend.ts). The result is
// the libsodium / OpenSSL / Go / tweetnacl behaviour (tweetnacl made the upstream vectors), in
// both backends, independent of what a future OpenSSL or noble release changes.
//
// Why small-order points are refused at all: with A of small order, one (R, S) pair verifies for
// many messages and for several keys (A = identity, R = identity, S = 0 verifies every message
// under the cofactored equation), so a signature would no longer bind one key to one message.

/** p = 2^255 − 19, the field prime. */
export const ED25519_P = 2n ** 255n - 19n;
/** L = 2^252 + 27742317777372353535851937790883648493, the prime order of the base point. */
export const ED25519_L = 2n ** 252n + 27742317777372353535851937790883648493n;

/**
 * The canonical encodings of the 8 points of small order (the torsion subgroup E[8]): identity,
 * the point of order 2, the 2 points of order 4, the 4 points of order 8.
 */
export const SMALL_ORDER_POINT_ENCODINGS: readonly string[] = Object.freeze([
  '0100000000000000000000000000000000000000000000000000000000000000', // identity (0, 1)
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // order 2 (0, −1)
  '0000000000000000000000000000000000000000000000000000000000000000', // order 4, y = 0
  '0000000000000000000000000000000000000000000000000000000000000080', // order 4, y = 0, −x
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85', // order 8, −x
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // order 8
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa', // order 8, −x
]);

function yOf(encoding: Uint8Array): bigint {
  const copy = Uint8Array.from(encoding);
  copy[31] = copy[31]! & 0x7f; // bit 255 is the sign of x, not part of y
  return bytesToBigIntLE(copy);
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

// The checks below compare bytes, not BigInts: they run before every Ed25519 verification, and
// the BigInt form (copy, hex string, parse, three times a call) cost about 2 µs of a 85 µs verify.
// The BigInt definitions stay the reference the tests compare against.
const P_LE = littleEndian32(ED25519_P);
const L_LE = littleEndian32(ED25519_L);

/**
 * The y-coordinates of the small-order points: 0, 1, p − 1 and the two order-8 values. Comparing y
 * (sign bit ignored) instead of whole encodings also refuses the invalid "x = 0 with the sign bit
 * set" forms of the identity and of (0, −1). Non-canonical encodings (y + p, possible only for
 * y ≤ 18, i.e. the identity and the order-4 points) are refused by the y < p rule.
 */
const SMALL_ORDER_Y: readonly Uint8Array[] = [
  ...new Set(SMALL_ORDER_POINT_ENCODINGS.map((h) => yOf(hexBytes(h)))),
].map(littleEndian32);

/** a < b for 32-byte little-endian numbers; bit 255 of `a` is ignored when `maskSign` is set. */
function lessThanLE(a: Uint8Array, b: Uint8Array, maskSign: boolean): boolean {
  for (let i = 31; i >= 0; i--) {
    const x = i === 31 && maskSign ? a[i]! & 0x7f : a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y;
  }
  return false;
}

function sameY(encoding: Uint8Array, y: Uint8Array): boolean {
  if ((encoding[31]! & 0x7f) !== y[31]) return false;
  for (let i = 0; i < 31; i++) if (encoding[i] !== y[i]) return false;
  return true;
}

/** True when a 32-byte point encoding is canonical (y < p) and not one of the small-order points. */
export function isAcceptablePointEncoding(encoding: Uint8Array): boolean {
  if (encoding.length !== 32 || !lessThanLE(encoding, P_LE, true)) return false;
  for (const y of SMALL_ORDER_Y) if (sameY(encoding, y)) return false;
  return true;
}

/** True when the 32-byte little-endian scalar S is canonical (S < L), RFC 8032 §5.1.7 step 1. */
export function isCanonicalScalar(scalar: Uint8Array): boolean {
  return scalar.length === 32 && lessThanLE(scalar, L_LE, false);
}

/**
 * The whole pre-check: exact lengths, canonical non-small-order A, canonical non-small-order R,
 * canonical S. A signature failing it is rejected without running the verification equation.
 */
export function ed25519Precheck(publicKey: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  return (
    isAcceptablePointEncoding(publicKey) &&
    isAcceptablePointEncoding(signature.subarray(0, 32)) &&
    isCanonicalScalar(signature.subarray(32, 64))
  );
}
