// What the key directory's store tests build their passports from (key-rotation, key-directory-prune): a kid of
// one repeated character, an agent's passport binding, and the keys one verified bundle says its agent has (P45).
import { sql } from 'kysely';
import type { NewKeyBinding, PassportKeys } from './repositories/key-directory.ts';
import type { Store } from './store.ts';

/** A 32-character kid made of `c` repeated (`c` may be several characters: `kid('1x')` is 64). */
export const kid = (c: string): string => c.repeat(32);

export const passportBinding = (k: string, agent: string, evidence: string): NewKeyBinding => ({
  kid: k,
  subject: agent,
  alg: 'ed25519',
  publicKeyB64: 'AAAA',
  role: 'passport',
  evidence,
  expiresAt: null,
});

/** A passport of `agentId` dated `createdAt`, listing `active` kids (all bound) and marking `marked`, signed by `signer`. */
export function passport(
  agentId: string,
  createdAt: string | undefined,
  evidence: string,
  active: string[],
  marked: string[] = [],
  signer: string | undefined = active[0],
): PassportKeys {
  return {
    agentId,
    passportSignerKid: signer,
    createdAt,
    evidence,
    activeKids: active,
    retiredKids: marked,
    subjects: [agentId],
    bindings: active.map((k) => passportBinding(k, agentId, evidence)),
  };
}

/** P566: how many disputes `filer` holds parties for now, read off the table (the service never asks). */
export async function disputeHoldsOf(store: Pick<Store, 'db'>, filer: string): Promise<number> {
  const { rows } = await sql<{ n: number | string | bigint }>`SELECT count(DISTINCT dispute_id) AS n
    FROM key_dispute_holds WHERE filer = ${filer}`.execute(store.db);
  return Number(rows[0]?.n ?? 0);
}
