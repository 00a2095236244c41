// Public API of the bundle builder: sample V1/V2 Signed Bundles for tests, fixtures and the CLI.
// SPEC.md "Signed Bundle", PROTOCOL §5–§6; DECISIONS D1, D5, D6, D8. Never imports the verifier.
import { resolveOptions } from './options.ts';
import type { BuildOptions, BuiltBundle } from './types.ts';
import { buildV1 } from './v1.ts';
import { buildV2 } from './v2.ts';

export {
  bundleKeysFromJson,
  bundleKeysToJson,
  generateBundleKeys,
  type KeyPairJson,
  keyEntry,
  keyPairToJson,
} from './keys.ts';
export { TIER_SAMPLES, type TierSample } from './tiers.ts';
export type {
  ArtifactSet,
  BuildHooks,
  BuildOptions,
  BuiltBundle,
  BundleKeyPair,
  BundleKeySet,
  BundleShape,
  JsonObject,
} from './types.ts';

/**
 * Builds a signed sample bundle. Throws only on programmer error (invalid options); the result
 * passes the schemas and verifies with the verifier settings that match its tier.
 */
export function buildSignedBundle(options: BuildOptions = {}): BuiltBundle {
  const resolved = resolveOptions(options);
  return resolved.version === '1.0' ? buildV1(resolved) : buildV2(resolved);
}
