// P501: a verified V2 bundle whose passport names an agent this service's key directory binds other passport keys to,
// none of which signed the passport (P45 continuity); P503: the same for the RPR and its human's binding keys. Its
// ids are self-asserted: a stranger can copy the agent's public RPR and sign a passport of its own keys that names
// the agent (P490). Core cannot know; the directory does (records/party-continuity.ts, P555). Said in a warning,
// never a failure: the verdict stays core's, as the SDKs' and the CLI's (P1, D12). P600: the same for an RPR the
// directory first bound for another agent (a copy: one RPR, one session, one agent).
import { spelledOut, type VerifyResponse } from '@proto/core';
import { decodeCbor } from '@proto/service-kit/cbor';
import { type WiredAnswer, wiredAnswer } from './answer-wire.ts';
import { NAMED_IN_A_WARNING as NAMED, withWarnings } from './directory-warnings.ts';
import type { ForeignPassport } from './records/party-continuity.ts';

const textDecoder = new TextDecoder();

function kidList(kids: readonly string[]): string {
  const named = kids.slice(0, NAMED).map(spelledOut);
  const more = kids.length - named.length;
  return `${kids.length === 1 ? 'kid' : 'kids'} ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** One warning for each party of the bundle the key directory binds other keys to: the agent, then the human. */
export function foreignPassportWarnings(foreign: ForeignPassport): string[] {
  const warnings: string[] = [];
  if (foreign.agent !== undefined) {
    warnings.push(
      `this service's key directory binds other passport keys to agent '${spelledOut(foreign.agent.id)}' ` +
        `(${kidList(foreign.agent.kids)}) and none of them signed this bundle's passport: the directory does not ` +
        "take it as that agent's passport, so the bundle may not come from that agent",
    );
  }
  if (foreign.human !== undefined) {
    warnings.push(
      `this service's key directory binds other binding keys to the principal (human_id ` +
        `'${spelledOut(foreign.human.id)}') (${kidList(foreign.human.kids)}) and none of them signed this ` +
        "bundle's RPR: the directory does not take it as that principal's RPR, so the bundle may not come from " +
        'that principal',
    );
  }
  if (foreign.rprAgent !== undefined) {
    warnings.push(
      `this bundle's RPR was first bound here for agent '${spelledOut(foreign.rprAgent)}': an RPR repeats its ` +
        "session's nonce, so a principal's second agent has an RPR of its own; this one may be a copy, and the " +
        'directory binds nothing for this agent under it',
    );
  }
  return warnings;
}

/**
 * The worker-written answer with `warnings` added. The warning is known only once the store has answered, after the
 * worker wrote the bytes (P68), so they are read back and written again here: only for a foreign passport, never on
 * the common path. The bytes are this service's own, in the member order each format keeps.
 */
export function wiredWithWarnings(answer: WiredAnswer, warnings: readonly string[]): WiredAnswer {
  const response = (
    answer.format === 'cbor' ? decodeCbor(answer.bytes) : JSON.parse(textDecoder.decode(answer.bytes))
  ) as VerifyResponse;
  return wiredAnswer(withWarnings(response, warnings), answer.format);
}
