// Shapes of the jurisdictional revocation list (D20) and the issued jurisdiction attestation (D21).
// SPEC.md "Revocation record and jurisdictional revocation list", "Jurisdiction attestation"; PROTOCOL §9.5–9.6.
import type { CoreError } from '../result.ts';

/** The signature object of both documents: Ed25519 over context ‖ 0x00 ‖ jcs(document without it). */
export interface Ed25519SignatureObject {
  readonly alg: 'ed25519';
  readonly public_key_b64: string;
  readonly sig_b64: string;
}

export interface RevocationEntry {
  readonly agent_id: string;
  /** ISO 8601. */
  readonly revoked_at: string;
  /** `sha256:` + hex SHA-256 of the UTF-8 reason text; the text itself is never published. */
  readonly reason_hash: string;
}

/** D20: SPEC.md's fields plus `list_number` (monotonic) and `next_update`. */
export interface UnsignedRevocationList {
  readonly issuer: string;
  readonly jurisdiction: string;
  /** ISO 8601 time this list was issued (signed). */
  readonly updated_at: string;
  readonly list_number: number;
  /** ISO 8601; after it the list is stale and must not be relied on. */
  readonly next_update: string;
  readonly entries: readonly RevocationEntry[];
}

export interface RevocationList extends UnsignedRevocationList {
  readonly signature: Ed25519SignatureObject;
}

/** D21's fields; `type` is optional (DCP-01 form) and signed when present. */
export interface UnsignedAttestation {
  readonly type?: 'jurisdiction_attestation';
  readonly issuer: string;
  readonly jurisdiction: string;
  /** `sha256:<hex>` of the responsible principal record (V2: equals `manifest.rpr_hash`). */
  readonly rpr_hash: string;
  readonly agent_id: string;
  readonly attested_at: string;
  /** ISO 8601; null (DCP-01) means no expiry. The attestation service always sets it. */
  readonly expires_at: string | null;
}

export interface IssuedAttestation extends UnsignedAttestation {
  readonly signature: Ed25519SignatureObject;
}

/**
 * A public key a verifier trusts, as published in the attestation-keys file
 * (`{key_id, public_key_b64, valid_from, valid_until}`). With a window, the key only vouches for
 * documents signed (updated_at / attested_at) inside it, so a retired key cannot sign new ones.
 */
export interface TrustedKey {
  readonly public_key_b64: string;
  readonly key_id?: string;
  readonly valid_from?: string | null;
  readonly valid_until?: string | null;
}

/** A bare base64 Ed25519 public key, or a key with its id and validity window. */
export type TrustedKeyInput = string | TrustedKey;

/** Why a revocation list cannot be relied on (D20). */
export type RevocationListProblem =
  | 'schema'
  | 'wrong_issuer'
  | 'wrong_jurisdiction'
  | 'untrusted_key'
  | 'bad_signature'
  | 'rollback'
  | 'stale'
  | 'not_yet_valid';

/** Why an attestation is refused (D21). */
export type AttestationProblem =
  | 'schema'
  | 'untrusted_key'
  | 'bad_signature'
  | 'rpr_mismatch'
  | 'agent_mismatch'
  | 'jurisdiction_mismatch'
  | 'issuer_mismatch'
  | 'key_retired'
  | 'not_yet_valid'
  | 'expired'
  | 'too_old';

export interface VerifiedRevocationList {
  readonly list: RevocationList;
  readonly listNumber: number;
  readonly updatedAt: Date;
  readonly nextUpdate: Date;
  /** The trusted key that signed it. */
  readonly signer: TrustedKey;
}

export interface RevocationListError extends CoreError {
  readonly reason: RevocationListProblem;
  /**
   * Present when the signature verified and only freshness or order failed (stale, rollback,
   * not_yet_valid): the list is authentic, so its entries still prove a revocation (they are permanent).
   */
  readonly authentic?: VerifiedRevocationList;
}

export interface VerifiedAttestation {
  readonly attestation: IssuedAttestation;
  readonly attestedAt: Date;
  readonly expiresAt: Date | null;
  readonly signer: TrustedKey;
}

export interface AttestationError extends CoreError {
  readonly reason: AttestationProblem;
}
