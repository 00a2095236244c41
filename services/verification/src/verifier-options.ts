// Maps the validated configuration to the core's VerifierOptions, in a form a worker thread can receive.
// SPEC.md verification-service configuration; DECISIONS D9–D11 (modes, tiers, V1 acceptance).
import type { VerifierOptions } from '@proto/core';
import type { VerificationConfig } from './config.ts';

/** Everything a verifier needs except the crypto backend object (chosen by name in each thread). */
export interface PortableVerifierOptions {
  readonly options: Omit<VerifierOptions, 'backend' | 'clock'>;
  readonly backend: VerificationConfig['CRYPTO_BACKEND'];
}

export function portableVerifierOptions(config: VerificationConfig): PortableVerifierOptions {
  return {
    backend: config.CRYPTO_BACKEND,
    options: {
      profile: config.PROTOCOL_PROFILE,
      mode: config.VERIFIER_MODE,
      requireSessionBinding: config.REQUIRE_SESSION_BINDING,
      requireCompositeBinding: config.REQUIRE_COMPOSITE_BINDING,
      maxKeyAgeDays: config.MAX_KEY_AGE_DAYS,
      // P452: the settings (/health) show the age the external check applies; core's `verify` would apply it too.
      attestationMaxAgeDays: config.ATTESTATION_MAX_AGE_DAYS,
      allowV1Bundles: config.ALLOW_V1_BUNDLES,
      ...(config.PQ_CHECKPOINT_INTERVAL === undefined
        ? {}
        : { checkpointInterval: config.PQ_CHECKPOINT_INTERVAL }),
      ...(config.VERIFIER_POLICY === undefined ? {} : { policy: config.VERIFIER_POLICY }),
    },
  };
}
