// What the key directory's store tests build their passports from (key-rotation, key-directory-prune): a kid of
// one repeated character, an agent's passport binding, and the keys one verified bundle says its agent has (P45).
import type { NewKeyBinding, PassportKeys } from './repositories/key-directory.ts';

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
