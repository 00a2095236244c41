// Public API of the crypto module: algorithms, backends, kids, domain separation, composite signatures.
// PROTOCOL §3 (domain separation), §4 (composite signatures, algorithms, kids); DECISIONS D8, D9.

export { ALGORITHM_SIZES, SIGNING_ALGS, type SigningAlg } from './algorithms.ts';
export type { CryptoBackend, KeyPair } from './backend.ts';
export {
  type CompositeBinding,
  type CompositeSignature,
  type CompositeVerifyResult,
  compositeSign,
  compositeVerify,
  type HalfStatus,
  parseCompositeSignature,
  type SignatureHalf,
  type SigningKey,
} from './composite.ts';
export { domainSeparatedMessage, domainSeparatedMessages } from './domain.ts';
export { ed25519Pkcs8FromSeed } from './key-encoding.ts';
export { publicKeyFromSecret } from './keys.ts';
export { deriveKid } from './kid.ts';
export { createNativeBackend } from './native-backend.ts';
export { createNobleBackend } from './noble-backend.ts';
export { selectCryptoBackend } from './select-backend.ts';
