// Identifiers, timestamps and random values shared by the V1 and V2 builders.
// SPEC.md "Limits" (identifier pattern), PROTOCOL §6.4 (64-hex session nonce), §6.6 (ckpt-<uuid>).
import { toHex } from '../../encoding/index.ts';
import type { BundleKeySet } from './types.ts';

export interface Identities {
  readonly humanId: string;
  readonly agentId: string;
  readonly intentId: string;
}

/** Ids that match ^[\w:.\-]{1,256}$ and are distinct per key set and per session. */
export function identities(principal: BundleKeySet, agent: BundleKeySet, sessionTag: string): Identities {
  return {
    humanId: `human-${principal.classical.kid.slice(0, 16)}`,
    agentId: `agent-${agent.classical.kid.slice(0, 16)}`,
    intentId: `intent-${sessionTag.slice(0, 16)}`,
  };
}

/**
 * The ids an audit entry repeats, as the (possibly hooked) intent names them: a hook that gives the payloads
 * another agent or principal gets a trail that names the same ones, which the verifier requires (P246).
 */
export function entryIdentities(
  intent: Readonly<Record<string, unknown>>,
  ids: Identities,
): { agent_id: string; human_id: string; intent_id: string } {
  const pick = (member: string, fallback: string) => {
    const value = intent[member];
    return typeof value === 'string' ? value : fallback;
  };
  return {
    agent_id: pick('agent_id', ids.agentId),
    human_id: pick('human_id', ids.humanId),
    intent_id: pick('intent_id', ids.intentId),
  };
}

/** 256-bit session nonce as 64 lowercase hex (PROTOCOL §6.4). */
export function sessionNonce(random: (length: number) => Uint8Array): string {
  return toHex(random(32));
}

/** RFC 9562 version-4 UUID from the builder's random source, so fixtures can be reproducible. */
export function uuidV4(random: (length: number) => Uint8Array): string {
  const b = Uint8Array.from(random(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = toHex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** ISO 8601 (date-time) of `now` shifted by whole seconds. */
export function isoAt(now: Date, offsetSeconds = 0): string {
  return new Date(now.getTime() + offsetSeconds * 1000).toISOString();
}

export const DAY_SECONDS = 86_400;
/** Validity given to generated keys and the RPR (one year). */
export const KEY_VALIDITY_SECONDS = 365 * DAY_SECONDS;
