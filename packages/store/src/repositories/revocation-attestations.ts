// The revocation repository's issued attestations and the signing keys a jurisdiction has used (lists and
// attestations alike): records beside the lists, which neither take the list lock nor change a list (D21).
import type { Kysely } from 'kysely';
import { assertId } from '../ids.ts';
import type { AttestationIssuance, AttestationTimes, IssuerKeyRecord } from './revocation-records.ts';
import { assertJurisdiction } from './revocation-rows.ts';
import type { RevocationDatabase } from './revocation-tables.ts';

export async function recordAttestation(
  db: Kysely<RevocationDatabase>,
  issuance: AttestationIssuance,
): Promise<number> {
  assertJurisdiction(issuance.jurisdiction);
  assertId('agent id', issuance.agent_id);
  const row = await db
    .insertInto('attestation_issuance')
    .values({ ...issuance })
    .returning('seq')
    .executeTakeFirstOrThrow();
  return Number(row.seq);
}

export async function countAttestations(
  db: Kysely<RevocationDatabase>,
  jurisdiction: string,
  agentId?: string,
): Promise<number> {
  const row = await db
    .selectFrom('attestation_issuance')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('jurisdiction', '=', jurisdiction)
    .$if(agentId !== undefined, (qb) => qb.where('agent_id', '=', agentId as string))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** How many issuances of one agent and RPR hash are read to find a live one: the newest first. */
const ISSUANCES_READ = 64;

export async function attestationTimes(
  db: Kysely<RevocationDatabase>,
  jurisdiction: string,
  agentId: string,
  rprHash: string,
): Promise<AttestationTimes[]> {
  return db
    .selectFrom('attestation_issuance')
    .select(['attested_at', 'expires_at'])
    .where('jurisdiction', '=', jurisdiction)
    .where('agent_id', '=', agentId)
    .where('rpr_hash', '=', rprHash)
    .orderBy('seq', 'desc')
    .limit(ISSUANCES_READ)
    .execute();
}

export async function registerKey(
  db: Kysely<RevocationDatabase>,
  jurisdiction: string,
  purpose: string,
  key: { readonly key_id: string; readonly public_key_b64: string },
  firstUsedAt: string,
): Promise<IssuerKeyRecord> {
  assertJurisdiction(jurisdiction);
  await db
    .insertInto('issuer_keys')
    .values({
      jurisdiction,
      purpose,
      key_id: key.key_id,
      public_key_b64: key.public_key_b64,
      first_used_at: firstUsedAt,
    })
    .onConflict((oc) => oc.columns(['jurisdiction', 'purpose', 'key_id']).doNothing())
    .execute();
  return db
    .selectFrom('issuer_keys')
    .select(['key_id', 'public_key_b64', 'first_used_at'])
    .where('jurisdiction', '=', jurisdiction)
    .where('purpose', '=', purpose)
    .where('key_id', '=', key.key_id)
    .executeTakeFirstOrThrow();
}

export async function keys(
  db: Kysely<RevocationDatabase>,
  jurisdiction: string,
  purpose: string,
): Promise<IssuerKeyRecord[]> {
  return db
    .selectFrom('issuer_keys')
    .select(['key_id', 'public_key_b64', 'first_used_at'])
    .where('jurisdiction', '=', jurisdiction)
    .where('purpose', '=', purpose)
    .orderBy('first_used_at')
    .orderBy('key_id')
    .execute();
}
