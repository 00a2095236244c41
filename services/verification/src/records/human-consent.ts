// P497: a succession record's `human_consent` (a HumanConfirmationV2) is the human's word, not the agent's: the outer
// signature is the predecessor's, so only the consent's own composite signature, under the HumanConfirmation context
// and by a key bound here to its `human_id`, shows that human consented. Checked on signed writes only (D22: the
// operator's token checks no signature, inner or outer).
import {
  type CryptoBackend,
  HUMAN_CONFIRMATION,
  type ProtocolProfile,
  verifyRecordSignature,
} from '@proto/core';
import { httpError, protocolError } from '@proto/service-kit';
import { badBody } from './errors.ts';
import { boundSigningKeys } from './signing-keys.ts';

export const SUCCESSION = 'succession_record';

/** A key as the key directory binds it (the members this check reads). */
interface BoundKey {
  readonly alg: string;
  readonly publicKey: Uint8Array;
  readonly subjects: readonly string[];
}

export interface ConsentCheck {
  readonly backend: CryptoBackend;
  readonly profile: ProtocolProfile;
  readonly keys: {
    lookup(kid: string): Promise<BoundKey | undefined> | BoundKey | undefined;
    markAuthorised?(kid: string, subjects: readonly string[]): Promise<boolean>;
  };
  /** P377: the consent carries its ML-DSA half too, as every signature under the operator's PQ floor. */
  readonly requirePq: boolean;
  /** P43: refuses when any of these ids (the human, the kids used) is revoked or cannot be checked. */
  readonly refuseRevoked: (ids: readonly string[]) => Promise<void>;
  readonly howKeysAreBound: string;
}

/** Refuses a signed succession record whose present `human_consent` is not provably its human's, for this ceremony. */
export async function refuseUnprovenConsent(
  check: ConsentCheck,
  record: Readonly<Record<string, unknown>>,
): Promise<void> {
  const consent = record['human_consent'];
  if (typeof consent !== 'object' || consent === null || Array.isArray(consent)) return; // absent or null
  const body = consent as Record<string, unknown>;
  const humanId = body['human_id'] as string; // schema-checked
  refuseForeignConsent(check.profile, record, body, humanId);

  const found = await boundSigningKeys<BoundKey>(body['composite_sig'], (kid) => check.keys.lookup(kid));
  const verdict = verifyRecordSignature(
    check.backend,
    check.profile,
    HUMAN_CONFIRMATION,
    body,
    (kid) => found.get(kid),
    { requirePq: check.requirePq },
  );
  if (!verdict.ok) {
    if (verdict.reason === 'unknown_key') {
      // A signature nobody here can check proves nothing about the human.
      throw httpError(
        'FORBIDDEN',
        `The human_consent is signed by key ${verdict.kid ?? '?'}, which is not bound here, so ${humanId}'s consent cannot be checked. ${check.howKeysAreBound}`,
        { details: { kid: verdict.kid ?? null, human_id: humanId } },
      );
    }
    throw protocolError(verdict.code, check.profile, `human_consent: ${verdict.message}`, {
      statusCode: 400,
    });
  }
  const used = verdict.pqKid === null ? [verdict.classicalKid] : [verdict.classicalKid, verdict.pqKid];
  const notTheHumans = used.find((kid) => !found.get(kid)?.subjects.includes(humanId));
  if (notTheHumans !== undefined) {
    throw httpError(
      'FORBIDDEN',
      `The human_consent's signature is valid but key ${notTheHumans} is not bound to ${humanId}: a consent is signed by the human it names (an RPR binding key of that human). ${check.howKeysAreBound}`,
      { details: { kid: notTheHumans, human_id: humanId } },
    );
  }
  await check.refuseRevoked([humanId, ...used]);
  // P174: the human's binding is kept as any author's is, marked before the record is stored.
  for (const kid of used) {
    if (check.keys.markAuthorised !== undefined && !(await check.keys.markAuthorised(kid, [humanId]))) {
      throw httpError('FORBIDDEN', `Key ${kid} is no longer bound to ${humanId}. ${check.howKeysAreBound}`, {
        details: { kid, human_id: humanId },
      });
    }
  }
}

/**
 * P498: a consent belongs to its ceremony: its human is one of the `ceremony_participants` and it carries the record's
 * `session_nonce`, so a human's genuine consent to one succession cannot be lifted into another.
 */
function refuseForeignConsent(
  profile: ProtocolProfile,
  record: Readonly<Record<string, unknown>>,
  consent: Readonly<Record<string, unknown>>,
  humanId: string,
): void {
  const participants = Array.isArray(record['ceremony_participants'])
    ? (record['ceremony_participants'] as unknown[])
    : [];
  if (!participants.includes(humanId)) {
    throw badBody(
      profile,
      'Invalid succession_record: /human_consent/human_id is not a ceremony participant',
      [
        {
          path: '/human_consent/human_id',
          message: 'must be one of ceremony_participants: the consenting human takes part in the ceremony',
        },
      ],
    );
  }
  if (consent['session_nonce'] !== record['session_nonce']) {
    throw badBody(
      profile,
      'Invalid succession_record: /human_consent/session_nonce differs from the record',
      [
        {
          path: '/human_consent/session_nonce',
          message: "must equal the record's session_nonce: a consent is given for this ceremony",
        },
      ],
    );
  }
}
