// Signing and offline verification of jurisdiction attestations issued by POST /attest.
// DECISIONS D21 (fields; Ed25519 over context(JurisdictionAttestation) ‖ 0x00 ‖ jcs); PROTOCOL §9.6 (checks).
import type { CryptoBackend } from '../crypto/backend.ts';
import type { ErrorName } from '../errors.ts';
import { DEFAULT_PROFILE, type ProtocolProfile } from '../profile.ts';
import { coreError, err, ok, type Result } from '../result.ts';
import { formatSchemaIssues } from '../schema/issues.ts';
import { validateSchema } from '../schema/registry.ts';
import { DEFAULT_MAX_CLOCK_SKEW_MS } from './list.ts';
import {
  backendOf,
  checkSignature,
  type SigningOptions,
  signDocument,
  signedMessage,
} from './signed-document.ts';
import type {
  AttestationError,
  AttestationProblem,
  IssuedAttestation,
  TrustedKeyInput,
  UnsignedAttestation,
  VerifiedAttestation,
} from './types.ts';

/** Schema of the issued form: `jurisdiction_attestation.schema.json#/$defs/issued_attestation`. */
export const ATTESTATION_SCHEMA = 'jurisdiction_attestation#issued_attestation';

/** Signs an attestation under the profile's JurisdictionAttestation context; checked against the schema. */
export function signAttestation(
  attestation: UnsignedAttestation,
  secretKey: Uint8Array,
  options: SigningOptions = {},
): Result<IssuedAttestation> {
  return signDocument<IssuedAttestation>(attestation, secretKey, options, {
    context: 'JurisdictionAttestation',
    schema: ATTESTATION_SCHEMA,
    label: 'attestation',
  });
}

export interface VerifyAttestationOptions {
  readonly now: Date;
  /** The RPR hash of the bundle at hand (`manifest.rpr_hash`): the attestation must name it. */
  readonly expectedRprHash?: string;
  readonly expectedAgentId?: string;
  readonly expectedJurisdiction?: string;
  readonly expectedIssuer?: string;
  readonly profile?: ProtocolProfile;
  readonly backend?: CryptoBackend;
  readonly maxClockSkewMs?: number;
}

const CODES: Readonly<Record<AttestationProblem, ErrorName>> = {
  schema: 'ARTIFACT_SCHEMA_INVALID',
  untrusted_key: 'CLASSICAL_SIG_INVALID',
  bad_signature: 'CLASSICAL_SIG_INVALID',
  rpr_mismatch: 'RPR_INVALID',
  agent_mismatch: 'RPR_INVALID',
  jurisdiction_mismatch: 'RPR_INVALID',
  issuer_mismatch: 'RPR_INVALID',
  not_yet_valid: 'SIGNATURE_EXPIRED',
  expired: 'SIGNATURE_EXPIRED',
};

function problem(
  reason: AttestationProblem,
  message: string,
): { readonly ok: false; readonly error: AttestationError } {
  return err({ ...coreError(CODES[reason], `attestation: ${message}`), reason });
}

/**
 * Verifies an issued attestation offline, in this order: schema; the signing key among
 * `trustedKeys` (inside its window at `attested_at`); the signature; the expected RPR hash, agent,
 * jurisdiction and issuer; `attested_at` not in the future (beyond the clock skew); `expires_at`
 * null or after `now`. Never throws.
 */
export function verifyAttestation(
  attestation: unknown,
  trustedKeys: readonly TrustedKeyInput[],
  options: VerifyAttestationOptions,
): Result<VerifiedAttestation, AttestationError> {
  const verdict = validateSchema('v2', ATTESTATION_SCHEMA, attestation);
  if (!verdict.valid) return problem('schema', formatSchemaIssues(verdict.issues));
  const doc = attestation as IssuedAttestation;
  const attestedAt = Date.parse(doc.attested_at);
  const expiresAt = doc.expires_at === null ? null : Date.parse(doc.expires_at);
  if (expiresAt !== null && !(expiresAt > attestedAt))
    return problem('schema', 'expires_at must be after attested_at');

  const profile = options.profile ?? DEFAULT_PROFILE;
  const message = signedMessage(
    profile,
    'JurisdictionAttestation',
    doc as unknown as Record<string, unknown>,
  );
  if (!message.ok) return problem('schema', message.error.message);
  const signature = checkSignature(doc.signature, message.value, trustedKeys, attestedAt, backendOf(options));
  if (!signature.ok) return problem(signature.reason, signature.message);

  if (options.expectedRprHash !== undefined && doc.rpr_hash !== options.expectedRprHash) {
    return problem('rpr_mismatch', `rpr_hash ${doc.rpr_hash} is not the bundle's ${options.expectedRprHash}`);
  }
  if (options.expectedAgentId !== undefined && doc.agent_id !== options.expectedAgentId) {
    return problem('agent_mismatch', `agent_id ${doc.agent_id} is not ${options.expectedAgentId}`);
  }
  if (options.expectedJurisdiction !== undefined && doc.jurisdiction !== options.expectedJurisdiction) {
    return problem(
      'jurisdiction_mismatch',
      `jurisdiction ${doc.jurisdiction} is not ${options.expectedJurisdiction}`,
    );
  }
  if (options.expectedIssuer !== undefined && doc.issuer !== options.expectedIssuer) {
    return problem('issuer_mismatch', `issuer ${doc.issuer} is not ${options.expectedIssuer}`);
  }
  const now = options.now.getTime();
  if (attestedAt - now > (options.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS)) {
    return problem('not_yet_valid', `attested_at ${doc.attested_at} is in the future`);
  }
  if (expiresAt !== null && now >= expiresAt) {
    return problem('expired', `expired at ${doc.expires_at}`);
  }
  return ok({
    attestation: doc,
    attestedAt: new Date(attestedAt),
    expiresAt: expiresAt === null ? null : new Date(expiresAt),
    signer: signature.signer,
  });
}
