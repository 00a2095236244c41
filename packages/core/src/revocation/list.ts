// Signing, offline verification and lookup of the jurisdictional revocation list.
// DECISIONS D20 (list_number, next_update, signature over context(Revocation) ‖ 0x00 ‖ jcs); SPEC.md revocation list.

import type { CryptoBackend } from '../crypto/backend.ts';
import type { ErrorName } from '../errors.ts';
import { hexDigest } from '../hash/digest.ts';
import { prefixedHash } from '../hash/prefixed.ts';
import { DEFAULT_PROFILE, type ProtocolProfile } from '../profile.ts';
import { coreError, err, ok, type Result } from '../result.ts';
import { formatSchemaIssues } from '../schema/issues.ts';
import { validateSchema } from '../schema/registry.ts';
import { DEFAULT_MAX_CLOCK_SKEW_MS } from '../time/clock-skew.ts';
import { instantOf } from '../time/instant.ts';
import {
  backendOf,
  checkSignature,
  type SigningOptions,
  signDocument,
  signedMessage,
} from './signed-document.ts';
import type {
  RevocationEntry,
  RevocationList,
  RevocationListError,
  RevocationListProblem,
  TrustedKeyInput,
  UnsignedRevocationList,
  VerifiedRevocationList,
} from './types.ts';

/** Schema of the list: `revocation_record.schema.json#/$defs/revocation_list`. */
export const REVOCATION_LIST_SCHEMA = 'revocation_record#revocation_list';

/** Clock skew tolerated before an `updated_at` in the future counts as not yet valid: core's one bound (P231). */
export { DEFAULT_MAX_CLOCK_SKEW_MS };

/** `sha256:` + SHA-256 of the UTF-8 reason: what the list publishes instead of the text (SPEC.md item 9). */
export function reasonHash(reason: string): string {
  return prefixedHash('sha256', hexDigest('sha256', reason));
}

/** Signs a list under the profile's Revocation context; the result is checked against the schema. */
export function signRevocationList(
  list: UnsignedRevocationList,
  secretKey: Uint8Array,
  options: SigningOptions = {},
): Result<RevocationList> {
  return signDocument<RevocationList>(list, secretKey, options, {
    context: 'Revocation',
    schema: REVOCATION_LIST_SCHEMA,
    label: 'revocation list',
  });
}

export interface VerifyRevocationListOptions {
  /** The verifier's time: a list is stale once it is past `next_update`. */
  readonly now: Date;
  /** Highest `list_number` already accepted for this jurisdiction: a lower one is a rollback. */
  readonly minListNumber?: number;
  readonly expectedJurisdiction?: string;
  readonly expectedIssuer?: string;
  readonly profile?: ProtocolProfile;
  readonly backend?: CryptoBackend;
  readonly maxClockSkewMs?: number;
}

const CODES: Readonly<Record<RevocationListProblem, ErrorName>> = {
  schema: 'ARTIFACT_SCHEMA_INVALID',
  wrong_issuer: 'ARTIFACT_SCHEMA_INVALID',
  wrong_jurisdiction: 'ARTIFACT_SCHEMA_INVALID',
  untrusted_key: 'CLASSICAL_SIG_INVALID',
  bad_signature: 'CLASSICAL_SIG_INVALID',
  rollback: 'SEQUENCE_OUT_OF_ORDER',
  stale: 'SIGNATURE_EXPIRED',
  not_yet_valid: 'SIGNATURE_EXPIRED',
};

function problem(
  reason: RevocationListProblem,
  message: string,
  authentic?: VerifiedRevocationList,
): { readonly ok: false; readonly error: RevocationListError } {
  return err({ ...coreError(CODES[reason], message), reason, ...(authentic ? { authentic } : {}) });
}

/**
 * Verifies a list offline (D20), in this order: schema; issuer and jurisdiction when expected; the
 * signing key among `trustedKeys` (and inside its window at `updated_at`); the signature; then
 * rollback (`list_number` below `minListNumber`), staleness (`now` past `next_update`) and an
 * `updated_at` further in the future than the clock skew allows. Failures of the last three carry
 * the authentic list. Never throws.
 */
export function verifyRevocationList(
  list: unknown,
  trustedKeys: readonly TrustedKeyInput[],
  options: VerifyRevocationListOptions,
): Result<VerifiedRevocationList, RevocationListError> {
  const verdict = validateSchema('v2', REVOCATION_LIST_SCHEMA, list);
  if (!verdict.valid) return problem('schema', `revocation list: ${formatSchemaIssues(verdict.issues)}`);
  const doc = list as RevocationList;
  // A leap second (P178): next_update ends the list's life, so it is read no later than written; updated_at is
  // checked against the clock skew, so no earlier. As the signing time it is the signer's own claim either way.
  const updatedAt = instantOf(doc.updated_at, 'latest');
  const nextUpdate = instantOf(doc.next_update, 'earliest');
  if (!(nextUpdate > updatedAt))
    return problem('schema', 'revocation list: next_update must be after updated_at');
  if (options.expectedIssuer !== undefined && doc.issuer !== options.expectedIssuer) {
    return problem(
      'wrong_issuer',
      `revocation list issuer is ${doc.issuer}, expected ${options.expectedIssuer}`,
    );
  }
  if (options.expectedJurisdiction !== undefined && doc.jurisdiction !== options.expectedJurisdiction) {
    return problem(
      'wrong_jurisdiction',
      `revocation list is for jurisdiction ${doc.jurisdiction}, expected ${options.expectedJurisdiction}`,
    );
  }
  const profile = options.profile ?? DEFAULT_PROFILE;
  const message = signedMessage(profile, 'Revocation', doc as unknown as Record<string, unknown>);
  if (!message.ok) return problem('schema', `revocation list: ${message.error.message}`);
  const signature = checkSignature(doc.signature, message.value, trustedKeys, updatedAt, backendOf(options));
  if (!signature.ok) return problem(signature.reason, `revocation list: ${signature.message}`);

  const verified: VerifiedRevocationList = {
    list: doc,
    listNumber: doc.list_number,
    updatedAt: new Date(updatedAt),
    nextUpdate: new Date(nextUpdate),
    signer: signature.signer,
  };
  const now = options.now.getTime();
  if (options.minListNumber !== undefined && doc.list_number < options.minListNumber) {
    return problem(
      'rollback',
      `revocation list number ${doc.list_number} is lower than ${options.minListNumber}, already seen`,
      verified,
    );
  }
  if (now > nextUpdate) {
    return problem(
      'stale',
      `revocation list ${doc.list_number} is stale: next_update ${doc.next_update} has passed`,
      verified,
    );
  }
  if (updatedAt - now > (options.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS)) {
    return problem(
      'not_yet_valid',
      `revocation list updated_at ${doc.updated_at} is in the future`,
      verified,
    );
  }
  return ok(verified);
}

/** The entry revoking any of `ids` (agent id first, then signer ids), if the list has one. */
export function findRevocation(
  list: Pick<UnsignedRevocationList, 'entries'>,
  ids: readonly string[],
): RevocationEntry | undefined {
  const wanted = new Set(ids.filter((id) => typeof id === 'string' && id.length > 0));
  if (wanted.size === 0 || !Array.isArray(list?.entries)) return undefined;
  return list.entries.find((entry) => wanted.has(entry.agent_id));
}

/** Whether the list revokes `agentId` (revocations are permanent: an authentic older list counts). */
export function isAgentRevoked(list: Pick<UnsignedRevocationList, 'entries'>, agentId: string): boolean {
  return findRevocation(list, [agentId]) !== undefined;
}
