// Public API of hashing: SHA-256 / SHA3-256 digests, prefixed and bare hex forms, canonical-JSON hashes.
// PROTOCOL §2.1, DECISIONS D3.
export {
  hashCanonicalV1,
  hashCanonicalV2,
  hexDigestCanonicalV2,
  hexDigestsCanonicalV2,
} from './canonical-hash.ts';
export { digest, digestPair, HASH_ALGS, type HashAlg, hexDigest } from './digest.ts';
export { isBareHex64, isPrefixedHashOf, parsePrefixedHash, prefixedHash } from './prefixed.ts';
