// Signing and offline verification of jurisdiction attestations issued by POST /attest.
// DECISIONS D21 (fields; Ed25519 over context(JurisdictionAttestation) ‖ 0x00 ‖ jcs); PROTOCOL §9.6 (checks).

import type { CryptoBackend } from '../crypto/backend.ts';
import type { ErrorName } from '../errors.ts';
import { DEFAULT_PROFILE, type ProtocolProfile } from '../profile.ts';
import { coreError, err, ok, type Result } from '../result.ts';
import { formatSchemaIssues } from '../schema/issues.ts';
import { validateSchema } from '../schema/registry.ts';
import { instantOf } from '../time/instant.ts';
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
  /** How far `attested_at` may lie ahead of `now` (clocks differ); default DEFAULT_MAX_CLOCK_SKEW_MS (5 min). */
  readonly maxClockSkewMs?: number;
  /** Oldest `attested_at` accepted when `expires_at` is null; default DEFAULT_ATTESTATION_MAX_AGE_MS (30 days). */
  readonly maxAgeMs?: number;
}

/** Issue 12 item 7: an attestation without `expires_at` is not forever; 30 days unless the caller says otherwise. */
export const DEFAULT_ATTESTATION_MAX_AGE_MS = 30 * 86_400_000;

const CODES: Readonly<Record<AttestationProblem, ErrorName>> = {
  schema: 'ARTIFACT_SCHEMA_INVALID',
  untrusted_key: 'CLASSICAL_SIG_INVALID',
  bad_signature: 'CLASSICAL_SIG_INVALID',
  rpr_mismatch: 'RPR_INVALID',
  agent_mismatch: 'RPR_INVALID',
  jurisdiction_mismatch: 'RPR_INVALID',
  issuer_mismatch: 'RPR_INVALID',
  key_retired: 'KEY_EXPIRED',
  not_yet_valid: 'SIGNATURE_EXPIRED',
  expired: 'SIGNATURE_EXPIRED',
  too_old: 'SIGNATURE_EXPIRED',
};

function problem(
  reason: AttestationProblem,
  message: string,
): { readonly ok: false; readonly error: AttestationError } {
  return err({ ...coreError(CODES[reason], `attestation: ${message}`), reason });
}

interface Instants {
  readonly attestedAt: number;
  readonly ageFrom: number;
  readonly expiresAt: number | null;
}

/** The checks after the signature: the expected RPR hash, agent and issuer, then the attestation's own times. */
function checkBinding(
  doc: IssuedAttestation,
  options: VerifyAttestationOptions,
  { attestedAt, ageFrom, expiresAt }: Instants,
): Result<true, AttestationError> {
  const now = options.now.getTime();
  if (options.expectedRprHash !== undefined && doc.rpr_hash !== options.expectedRprHash) {
    return problem('rpr_mismatch', `rpr_hash ${doc.rpr_hash} is not the bundle's ${options.expectedRprHash}`);
  }
  if (options.expectedAgentId !== undefined && doc.agent_id !== options.expectedAgentId) {
    return problem('agent_mismatch', `agent_id ${doc.agent_id} is not ${options.expectedAgentId}`);
  }
  if (options.expectedIssuer !== undefined && doc.issuer !== options.expectedIssuer) {
    return problem('issuer_mismatch', `issuer ${doc.issuer} is not ${options.expectedIssuer}`);
  }
  if (attestedAt - now > (options.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS)) {
    return problem('not_yet_valid', `attested_at ${doc.attested_at} is in the future`);
  }
  if (expiresAt !== null && now >= expiresAt) {
    return problem('expired', `expired at ${doc.expires_at}`);
  }
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_ATTESTATION_MAX_AGE_MS;
  if (expiresAt === null && now - ageFrom > maxAgeMs) {
    return problem(
      'too_old',
      `attested_at ${doc.attested_at} is older than the ${Math.floor(maxAgeMs / 86_400_000)}-day maximum age of an attestation without expires_at`,
    );
  }
  return ok(true);
}

/**
 * P435: every check of `verifyAttestation` that needs no issuer key, in its order: schema, a signable form, the
 * expected jurisdiction, RPR hash, agent and issuer, `attested_at` not in the future, not expired (or too old). The
 * issuer signs an attestation (PROTOCOL §9.6, D21), never a key the bundle holds, so with no trusted keys a caller
 * can fail one this way but never pass one. Never throws.
 */
export function checkAttestationInHand(
  attestation: unknown,
  options: VerifyAttestationOptions,
): Result<IssuedAttestation, AttestationError> {
  const verdict = validateSchema('v2', ATTESTATION_SCHEMA, attestation);
  if (!verdict.valid) return problem('schema', formatSchemaIssues(verdict.issues));
  const doc = attestation as IssuedAttestation;
  const attestedAt = instantOf(doc.attested_at, 'latest');
  const ageFrom = instantOf(doc.attested_at, 'earliest');
  const expiresAt = doc.expires_at === null ? null : instantOf(doc.expires_at, 'earliest');
  if (expiresAt !== null && !(expiresAt > attestedAt))
    return problem('schema', 'expires_at must be after attested_at');
  const message = signedMessage(
    options.profile ?? DEFAULT_PROFILE,
    'JurisdictionAttestation',
    doc as unknown as Record<string, unknown>,
  );
  if (!message.ok) return problem('schema', message.error.message);
  if (options.expectedJurisdiction !== undefined && doc.jurisdiction !== options.expectedJurisdiction) {
    return problem(
      'jurisdiction_mismatch',
      `jurisdiction ${doc.jurisdiction} is not the bundle's ${options.expectedJurisdiction}`,
    );
  }
  const bound = checkBinding(doc, options, { attestedAt, ageFrom, expiresAt });
  return bound.ok ? ok(doc) : bound;
}

/**
 * Verifies an issued attestation offline, in this order: schema; the expected jurisdiction (before any
 * crypto: an attestation for another jurisdiction is refused as such); the signing key among `trustedKeys`
 * (inside its window at `attested_at`); the signature; the key still inside its window at `now` (a retired
 * key vouches for nothing, whatever `attested_at` it writes); the expected RPR hash, agent and issuer;
 * `attested_at` not in the future (beyond the clock skew); `expires_at` after `now`, or, when null,
 * `attested_at` no older than the maximum age. Never throws.
 */
export function verifyAttestation(
  attestation: unknown,
  trustedKeys: readonly TrustedKeyInput[],
  options: VerifyAttestationOptions,
): Result<VerifiedAttestation, AttestationError> {
  const verdict = validateSchema('v2', ATTESTATION_SCHEMA, attestation);
  if (!verdict.valid) return problem('schema', formatSchemaIssues(verdict.issues));
  const doc = attestation as IssuedAttestation;
  // A leap second (P178): attested_at must not be in the future, so it is read no earlier than written; the age
  // of an attestation without expires_at counts from it read no later, like expires_at itself.
  const attestedAt = instantOf(doc.attested_at, 'latest');
  const ageFrom = instantOf(doc.attested_at, 'earliest');
  const expiresAt = doc.expires_at === null ? null : instantOf(doc.expires_at, 'earliest');
  if (expiresAt !== null && !(expiresAt > attestedAt))
    return problem('schema', 'expires_at must be after attested_at');

  const profile = options.profile ?? DEFAULT_PROFILE;
  const message = signedMessage(
    profile,
    'JurisdictionAttestation',
    doc as unknown as Record<string, unknown>,
  );
  if (!message.ok) return problem('schema', message.error.message);
  if (options.expectedJurisdiction !== undefined && doc.jurisdiction !== options.expectedJurisdiction) {
    return problem(
      'jurisdiction_mismatch',
      `jurisdiction ${doc.jurisdiction} is not the bundle's ${options.expectedJurisdiction}`,
    );
  }
  const signature = checkSignature(doc.signature, message.value, trustedKeys, attestedAt, backendOf(options));
  if (!signature.ok) return problem(signature.reason, signature.message);
  const now = options.now.getTime();
  const retiredAt = signature.signer.valid_until;
  if (typeof retiredAt === 'string' && now > instantOf(retiredAt, 'earliest')) {
    return problem(
      'key_retired',
      `signing key ${signature.signer.key_id ?? ''} was retired at ${retiredAt}; it vouches for nothing now`,
    );
  }

  const bound = checkBinding(doc, options, { attestedAt, ageFrom, expiresAt });
  if (!bound.ok) return bound;
  return ok({
    attestation: doc,
    attestedAt: new Date(attestedAt),
    expiresAt: expiresAt === null ? null : new Date(expiresAt),
    signer: signature.signer,
  });
}
