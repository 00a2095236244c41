// Emergency revocation rules without HTTP: the secret check and what a verified bundle lets us register.
// PROTOCOL §9.5 (emergency check, passport emergency_revocation_token), issue 12 item 9.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { BundleAnalysis, VerifyResponse } from '@proto/core';
import type { AttestationTimes } from '@proto/store';
import { DEFAULT_ATTESTATION_MAX_AGE_MS, dateTimeInstant } from './core.ts';

const TOKEN_PATTERN = /^sha256:[0-9a-f]{64}$/;
const SECRET_PATTERN = /^[0-9a-f]{64}$/;
const KID_PATTERN = /^[0-9a-f]{32}$/;

/**
 * P484: the most kids one registration takes, as many as the operator's PUT /emergency-tokens may list. Each becomes
 * an entry of the signed list every verifier fetches when the secret is used; without a bound one self-made bundle
 * (each PQ checkpoint signed by another passport key) put 82 entries in the list with one revocation.
 */
export const MAX_REGISTERED_KIDS = 16;

/** The reason every emergency entry carries (schema emergency_revocation: reason is this constant). */
export const EMERGENCY_REASON = 'key_compromise_emergency';

/** `sha256:` + hex SHA-256 of the 32 secret bytes: the token a passport carries for this secret. */
export function tokenOfSecret(secretHex: string): string {
  return `sha256:${createHash('sha256').update(Buffer.from(secretHex, 'hex')).digest('hex')}`;
}

/**
 * Whether the secret hashes to the token. The digests are compared with timingSafeEqual so the time
 * taken does not tell a guesser how many leading bytes were right.
 */
export function secretMatchesToken(secretHex: string, token: string): boolean {
  if (!SECRET_PATTERN.test(secretHex) || !TOKEN_PATTERN.test(token)) return false;
  const actual = createHash('sha256').update(Buffer.from(secretHex, 'hex')).digest();
  const expected = Buffer.from(token.slice('sha256:'.length), 'hex');
  return timingSafeEqual(actual, expected);
}

/**
 * A token no secret is known for, drawn at start: what an agent without a registered token has its secret
 * compared with, so that case hashes and compares as a wrong secret does and takes the same time (P305).
 */
const UNREGISTERED_TOKEN = `sha256:${randomBytes(32).toString('hex')}`;

/**
 * Whether the secret proves the registered token, `undefined` when none is registered. The secret is hashed
 * and compared in both cases: an early return for a missing token would answer faster than a wrong secret
 * does, and tell a caller without the secret which agents have a token (P305).
 */
export function secretProvesRegisteredToken(secretHex: string, registered: string | undefined): boolean {
  const matches = secretMatchesToken(secretHex, registered ?? UNREGISTERED_TOKEN);
  return registered !== undefined && matches;
}

export interface BundleRegistration {
  readonly agent_id: string;
  readonly token: string;
  readonly kids: readonly string[];
  readonly human_id: string | null;
  readonly jurisdiction: string | undefined;
  /** `sha256:` of jcs(RPR payload), what an attestation of this service binds to the agent id (D21). */
  readonly rpr_hash: string | undefined;
}

/** What registrationFromBundle reads of a bundle's analysis (it runs on the verification thread, P576). */
export type BundleFacts = Pick<BundleAnalysis, 'agentId' | 'signerKids' | 'jurisdiction' | 'rprHash'>;

/** What of the verdict is read: whether it verified as V2, and its first error for the refusal. */
export type BundleVerdict = Pick<VerifyResponse, 'verified' | 'version' | 'error_details'>;

export type BundleRegistrationResult =
  | { readonly ok: true; readonly value: BundleRegistration }
  | {
      readonly ok: false;
      readonly reason: 'not_verified' | 'no_token' | 'no_agent' | 'not_signed_by_principal';
    }
  | { readonly ok: false; readonly reason: 'too_many_kids'; readonly kids: number };

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function payloadOf(signedBundle: unknown, artifact: string): Record<string, unknown> | undefined {
  return record(record(record(record(signedBundle)?.['bundle'])?.[artifact])?.['payload']);
}

/**
 * What a verified V2 bundle vouches for: its passport's agent id and token, and the kids that are both
 * listed in the passport and proved by a verified signature in this bundle. A passport can list any
 * public key, so a key not used to sign is never taken (else an agent could get another agent's key
 * revoked); the principal's keys sign the RPR but are not the agent's and are left out too.
 */
export function registrationFromBundle(
  signedBundle: unknown,
  analysis: BundleFacts,
  response: BundleVerdict,
): BundleRegistrationResult {
  if (!response.verified || response.version !== '2.0') return { ok: false, reason: 'not_verified' };
  const passport = payloadOf(signedBundle, 'agent_passport');
  const agentId = analysis.agentId;
  if (passport === undefined || agentId === undefined || passport['agent_id'] !== agentId) {
    return { ok: false, reason: 'no_agent' };
  }
  const token = passport['emergency_revocation_token'];
  if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) return { ok: false, reason: 'no_token' };
  if (!signedByPrincipal(signedBundle)) return { ok: false, reason: 'not_signed_by_principal' };
  const passportKids = new Set(
    (Array.isArray(passport['keys']) ? passport['keys'] : [])
      .map((k) => record(k)?.['kid'])
      .filter((kid): kid is string => typeof kid === 'string' && KID_PATTERN.test(kid)),
  );
  const kids = analysis.signerKids.filter((kid) => passportKids.has(kid));
  // P484: each kid becomes an entry of the signed list when the secret is used; as many as the operator's PUT.
  if (kids.length > MAX_REGISTERED_KIDS) return { ok: false, reason: 'too_many_kids', kids: kids.length };
  const humanId = payloadOf(signedBundle, 'responsible_principal_record')?.['human_id'];
  return {
    ok: true,
    value: {
      agent_id: agentId,
      token,
      kids,
      human_id: typeof humanId === 'string' ? humanId : null,
      jurisdiction: analysis.jurisdiction,
      rpr_hash: analysis.rprHash,
    },
  };
}

/**
 * P480: whether every key named by the bundle's own signature is a key of its RPR's `binding_keys`. That signature
 * covers the manifest, which carries the passport's hash and so its emergency token: the principal vouches for the
 * token. Without this, a verified bundle proved only who holds the keys that signed it: D8 finds a key by kid in the
 * passport as well as in the RPR, and the RPR is public (every bundle of the agent carries it, signed), so a stranger
 * could copy an attested agent's RPR beside a passport of its own naming that agent, sign the rest with its own keys,
 * and register its own token for the agent: the attestation (agent id, RPR hash) matched the copy. Only called on a
 * verified bundle, so the named keys did sign and the RPR payload is the one its hash names.
 */
function signedByPrincipal(signedBundle: unknown): boolean {
  const rpr = payloadOf(signedBundle, 'responsible_principal_record');
  const principalKids = new Set(
    (Array.isArray(rpr?.['binding_keys']) ? rpr['binding_keys'] : [])
      .map((k) => record(k)?.['kid'])
      .filter((kid): kid is string => typeof kid === 'string'),
  );
  const composite = record(record(record(signedBundle)?.['signature'])?.['composite_sig']);
  const named = [record(composite?.['classical'])?.['kid'], record(composite?.['pq'])?.['kid']].filter(
    (kid) => kid !== undefined && kid !== null,
  );
  return named.length > 0 && named.every((kid) => typeof kid === 'string' && principalKids.has(kid));
}

/**
 * Whether an issued attestation still vouches for its agent at `nowMs`: before its `expires_at` (read at its
 * earliest, a leap second included, as verifiers read it), or, with none written, within the 30 days a verifier
 * gives such an attestation from its `attested_at`. An unreadable time holds nothing (P211).
 */
export function attestationHolds(times: AttestationTimes, nowMs: number): boolean {
  const until =
    times.expires_at === null
      ? dateTimeInstant(times.attested_at, 'earliest') + DEFAULT_ATTESTATION_MAX_AGE_MS
      : dateTimeInstant(times.expires_at, 'earliest');
  return Number.isFinite(until) && nowMs < until;
}
