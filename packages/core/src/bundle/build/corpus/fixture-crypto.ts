// Reproducible crypto for committed fixtures: key sets derived from fixed seeds and a backend whose
// ML-DSA-65 signatures are deterministic (FIPS 204 §3.4, rnd = 0). Test-only; PROTOCOL §4.3, §4.4.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { type CryptoBackend, deriveKid } from '../../../crypto/index.ts';
import { concatBytes, fromHex } from '../../../encoding/index.ts';
import type { BundleKeySet } from '../types.ts';

/** PKCS#8 DER prefix of an Ed25519 private key (RFC 8410), followed by the 32-byte seed. */
const ED25519_PKCS8_PREFIX = seedBytes('302e020100300506032b657004220420');

function seedBytes(hex: string): Uint8Array {
  const bytes = fromHex(hex);
  if (bytes === undefined) throw new Error(`not lowercase hex: ${hex}`);
  return bytes;
}

/** Ed25519 key pair in the SDK layout (secret = seed ‖ public key) from a 32-byte seed. */
function ed25519FromSeed(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  const privateKey = createPrivateKey({
    key: Buffer.from(concatBytes(ED25519_PKCS8_PREFIX, seed)),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const publicKey = new Uint8Array(Buffer.from(String(jwk.x), 'base64url'));
  return { publicKey, secretKey: concatBytes(seed, publicKey) };
}

export interface KeySeeds {
  /** 64 hex (32 bytes) each. */
  readonly ed25519: string;
  readonly 'ml-dsa-65'?: string;
}

/** The key set that seeds always produce (FIPS 204 ML-DSA.KeyGen_internal from ξ = seed). */
export function keySetFromSeeds(seeds: KeySeeds): BundleKeySet {
  const ed = ed25519FromSeed(seedBytes(seeds.ed25519));
  const classical = { alg: 'ed25519' as const, kid: deriveKid('ed25519', ed.publicKey), ...ed };
  const pqSeed = seeds['ml-dsa-65'];
  if (pqSeed === undefined) return { classical };
  const pqPair = ml_dsa65.keygen(seedBytes(pqSeed));
  const pq = {
    alg: 'ml-dsa-65' as const,
    kid: deriveKid('ml-dsa-65', pqPair.publicKey),
    publicKey: pqPair.publicKey,
    secretKey: pqPair.secretKey,
  };
  return { classical, pq };
}

/**
 * The base backend with deterministic ML-DSA-65 signing (rnd = 32 zero bytes, pure mode, empty
 * context), so regenerating the corpus gives the same bytes. Verifiers cannot tell the variants
 * apart; Ed25519 is deterministic anyway.
 */
export function deterministicBackend(base: CryptoBackend): CryptoBackend {
  return {
    name: base.name,
    algorithms: base.algorithms,
    verify: (alg, publicKey, message, signature) => base.verify(alg, publicKey, message, signature),
    generateKeyPair: (alg) => base.generateKeyPair(alg),
    sign: (alg, secretKey, message) =>
      alg === 'ml-dsa-65'
        ? ml_dsa65.sign(message, secretKey, { extraEntropy: false })
        : base.sign(alg, secretKey, message),
  };
}
