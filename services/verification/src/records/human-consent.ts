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
import { RecordIdRetiredError, type RecordRepository } from '@proto/store';
import { badBody, conflict } from './errors.ts';
import { payloadHash } from './ids.ts';
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
    /** P560: the predecessor's current principal (its newest RPR's human); absent: an in-memory test directory. */
    currentPrincipal?(agentId: string): Promise<string | undefined>;
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
  refuseStrangersConsent(record, humanId, used, found, check.howKeysAreBound);
  await refuseFormerPrincipalsConsent(check, record, humanId);
  await check.refuseRevoked([humanId, ...used]);
  // P512: the human's proven word is the refusal; a succession stored as "consented" would turn it into the opposite.
  if (body['decision'] === 'deny') {
    throw conflict(
      `${humanId}'s human_consent says deny: a succession record is stored with its human's consent, never against it`,
      { reason: 'human_consent_denied', human_id: humanId, session_nonce: body['session_nonce'] },
    );
  }
  // P174: the human's binding, and its binding to the predecessor (P542), kept as any author's is, marked before the
  // record is stored.
  const predecessor = String(record['predecessor_agent_id']);
  for (const kid of used) {
    if (
      check.keys.markAuthorised !== undefined &&
      !(await check.keys.markAuthorised(kid, [humanId, predecessor]))
    ) {
      throw httpError(
        'FORBIDDEN',
        `Key ${kid} is no longer bound to ${humanId} and ${predecessor}. ${check.howKeysAreBound}`,
        { details: { kid, human_id: humanId, predecessor_agent_id: predecessor } },
      );
    }
  }
}

/**
 * P542: a consent names no predecessor, so any agent listing the human could spend it first (P511) and block the
 * ceremony it was given for. The consenting human is the predecessor's own principal as the key directory knows it:
 * each key that signed the consent is bound to the predecessor too, as an RPR binding key of a bundle of that agent
 * verified here (P45's continuity keeps a stranger's bundle from binding it).
 */
function refuseStrangersConsent(
  record: Readonly<Record<string, unknown>>,
  humanId: string,
  used: readonly string[],
  found: ReadonlyMap<string, BoundKey>,
  howKeysAreBound: string,
): void {
  const predecessor = String(record['predecessor_agent_id']); // schema-checked
  const notThePredecessors = used.find((kid) => !found.get(kid)?.subjects.includes(predecessor));
  if (notThePredecessors === undefined) return;
  throw httpError(
    'FORBIDDEN',
    `The human_consent is ${humanId}'s, but key ${notThePredecessors} is not bound to the predecessor ${predecessor}: a succession record carries the consent of the predecessor's own principal, signed with an RPR binding key of a verified bundle of ${predecessor}. ${howKeysAreBound}`,
    {
      details: {
        reason: 'human_consent_not_predecessor_principal',
        kid: notThePredecessors,
        human_id: humanId,
        predecessor_agent_id: predecessor,
      },
    },
  );
}

/**
 * P560: every human ever bound to the predecessor as its principal keeps its RPR keys' bindings to it (a newer
 * bundle naming another human retires none of them), so P542's per-key rule still let a former principal consent. The
 * consenting human is the predecessor's CURRENT principal: the human of its newest RPR (by `issued_at`) of a verified
 * bundle that spoke for both (the key directory's `currentPrincipal`). None known (no bundle of it verified since
 * migration 0026) is refused as the safe side, as P542 refuses keys no longer bound: verifying its bundle places it.
 * P601: nor is one whose newest RPR has expired (core refuses an expired RPR's bundle): none until a newer RPR.
 */
async function refuseFormerPrincipalsConsent(
  check: ConsentCheck,
  record: Readonly<Record<string, unknown>>,
  humanId: string,
): Promise<void> {
  if (check.keys.currentPrincipal === undefined) return;
  const predecessor = String(record['predecessor_agent_id']); // schema-checked
  const current = await check.keys.currentPrincipal(predecessor);
  if (current === humanId) return;
  const why =
    current === undefined
      ? `no current principal of ${predecessor} is known here (no bundle of it verified since this service learnt RPR order, or its newest RPR has expired): verify a bundle with its newest, unexpired RPR at POST /verify first`
      : `${predecessor}'s current principal is ${current} (its newest RPR, by issued_at, of a bundle verified here)`;
  throw httpError(
    'FORBIDDEN',
    `The human_consent is ${humanId}'s, but ${why}: a succession record carries the consent of the predecessor's current principal, not of a former one.`,
    {
      details: {
        reason: 'human_consent_not_current_principal',
        human_id: humanId,
        current_principal: current ?? null,
        predecessor_agent_id: predecessor,
      },
    },
  );
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

/** P511: one use of a human's consent, kept under the consent's payload hash (the human's signed words). */
export const CONSENT_USE = 'succession_consent_use';

type ConsentUse = Readonly<
  Record<'predecessor_agent_id' | 'successor_agent_id' | 'memory_transfer_manifest_hash', unknown>
>;

/**
 * P511: a HumanConfirmationV2 names no successor and no manifest (its schema is closed), so nothing the human signed
 * binds them; the agent could fill in any. A verified consent is therefore spent on the first succession stored with it:
 * the same consent in a record with another predecessor, successor or manifest is refused. Called in the write's
 * transaction, so two racing uses cannot both be stored.
 */
export async function spendConsent(
  records: Pick<RecordRepository, 'put'>,
  record: Readonly<Record<string, unknown>>,
): Promise<void> {
  const consent = record['human_consent'];
  if (typeof consent !== 'object' || consent === null || Array.isArray(consent)) return;
  const body = consent as Record<string, unknown>;
  const id = payloadHash(body);
  if (!id.ok) throw new Error(`payload hash of a validated consent failed: ${id.error.message}`);
  const use: ConsentUse = {
    predecessor_agent_id: record['predecessor_agent_id'],
    successor_agent_id: record['successor_agent_id'],
    memory_transfer_manifest_hash: record['memory_transfer_manifest_hash'],
  };
  const details = { reason: 'human_consent_already_used', human_id: body['human_id'], consent_id: id.value };
  const why = `${String(body['human_id'])}'s human_consent (session_nonce ${String(body['session_nonce'])}) was already used`;
  const limit =
    'a consent names no successor and no manifest, so it is spent on the first succession stored with it';
  let put: Awaited<ReturnType<RecordRepository['put']>>;
  try {
    put = await records.put(
      CONSENT_USE,
      id.value,
      { ...use, human_id: body['human_id'] },
      {
        agentId: String(record['predecessor_agent_id']),
      },
    );
  } catch (error) {
    // Its first use was evicted by retention (D17); the tombstone still says it was spent on another succession.
    if (error instanceof RecordIdRetiredError)
      throw conflict(`${why} for another succession: ${limit}`, details);
    throw error;
  }
  if (put.status !== 'conflict') return;
  const first = put.stored.record as ConsentUse;
  throw conflict(
    `${why} for the succession of ${String(first.predecessor_agent_id)} to ${String(first.successor_agent_id)} (manifest ${String(first.memory_transfer_manifest_hash)}): ${limit}`,
    { ...details, first_use: first },
  );
}

/**
 * P513: an agent's latest digital testament saying `human_consent_required` holds for its succession records: a
 * verified write of one without a consent is refused. (A record with one has had it verified by the authorizer, P497.)
 */
export async function refuseUnconsentedSuccession(
  records: Pick<RecordRepository, 'latestForAgent'>,
  record: Readonly<Record<string, unknown>>,
): Promise<void> {
  const consent = record['human_consent'];
  if (typeof consent === 'object' && consent !== null) return;
  const agentId = String(record['predecessor_agent_id']);
  const testament = (await records.latestForAgent('digital_testament', agentId))?.record as
    | Readonly<Record<string, unknown>>
    | undefined;
  if (testament?.['human_consent_required'] !== true) return;
  throw conflict(
    `Agent ${agentId}'s digital testament (version ${String(testament['testament_version'])}) requires a human's consent to its succession, and this record carries none`,
    {
      reason: 'human_consent_required',
      agent_id: agentId,
      testament_version: testament['testament_version'],
    },
  );
}
