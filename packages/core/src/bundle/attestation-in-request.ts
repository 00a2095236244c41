// A request's `jurisdiction_attestation` judged with what is in hand (P435–P437): P386's rule for the attestation. The
// issuer signs it (PROTOCOL §9.6, D21), never a key the bundle holds, so without the issuer's keys nothing can pass
// it; but a malformed one, one naming another agent, RPR or jurisdiction than the bundle's, or one out of its own
// time window is contradicted by the bundle and the clock. Those fail wherever the request is read: core's `verify`,
// POST /verify with no ATTESTATION_TRUSTED_KEYS, `proto verify` (FILE and --batch) with no --attestation-key.
import { errorCode } from '../errors.ts';
import type { ProtocolProfile } from '../profile.ts';
import { checkAttestationInHand } from '../revocation/attestation.ts';
import type { ExternalOutcome } from './verdict.ts';

/** What of the bundle an attestation must name (the analysis' `rprHash`, `agentId`, `jurisdiction`). */
export interface AttestationSubject {
  readonly rprHash?: string;
  readonly agentId?: string;
  readonly jurisdiction?: string;
}

export interface AttestationInHandOptions {
  readonly now: Date;
  readonly profile: ProtocolProfile;
  /** Oldest `attested_at` accepted when `expires_at` is null (the service's ATTESTATION_MAX_AGE_DAYS). */
  readonly maxAgeMs?: number;
}

/**
 * The `attestation` outcome of `attestation` for the bundle `subject` names, with no issuer key: `fail` (with its
 * code and message, as a keyed check words it) when what is in hand contradicts it, else `skipped` with `unchecked`.
 */
export function attestationOutcomeInHand(
  attestation: unknown,
  subject: AttestationSubject,
  options: AttestationInHandOptions,
  unchecked: string,
): ExternalOutcome {
  const checked = checkAttestationInHand(attestation, {
    now: options.now,
    profile: options.profile,
    ...(subject.rprHash === undefined ? {} : { expectedRprHash: subject.rprHash }),
    ...(subject.agentId === undefined ? {} : { expectedAgentId: subject.agentId }),
    ...(subject.jurisdiction === undefined ? {} : { expectedJurisdiction: subject.jurisdiction }),
    ...(options.maxAgeMs === undefined ? {} : { maxAgeMs: options.maxAgeMs }),
  });
  if (checked.ok) return { check: 'attestation', status: 'skipped', warnings: [unchecked] };
  return {
    check: 'attestation',
    status: 'fail',
    error: {
      code: errorCode(checked.error.code, options.profile),
      check: 'attestation',
      message: checked.error.message,
      retryable: false,
    },
    warnings: [],
  };
}
