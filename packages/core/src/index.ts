// Public API of the core protocol library: canonical JSON, hashes, Merkle trees, crypto, schemas,
// policy, bundle verification and building. Pure logic, no I/O (docs/architecture.md §1–2).

export * from './anchor/index.ts';
export {
  type ArtifactSet,
  type BuildHooks,
  type BuildOptions,
  type BuiltBundle,
  type BundleKeyPair,
  type BundleKeySet,
  type BundleShape,
  buildSignedBundle,
  bundleKeysFromJson,
  bundleKeysToJson,
  generateBundleKeys,
  type JsonObject,
  type KeyPairJson,
  keyEntry,
  keyPairToJson,
  TIER_SAMPLES,
  type TierSample,
} from './bundle/build/index.ts';
export * from './bundle/index.ts';
export * from './canonical/index.ts';
export * from './crypto/index.ts';
export * from './encoding/index.ts';
export * from './errors.ts';
export * from './hash/index.ts';
export * from './merkle/index.ts';
export * from './policy/index.ts';
export * from './profile.ts';
export * from './records/signature.ts';
export * from './result.ts';
export * from './revocation/index.ts';
export * from './schema/index.ts';
export * from './time/index.ts';
export * from './tlog/index.ts';
