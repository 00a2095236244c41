// What a verified V2 bundle says about its agent's keys, read from its parsed request: passport keys → agent_id,
// RPR binding keys → human_id and the agent, plus what rotation needs (the passport's time, the kids it lists and
// the kids it marks other than active, who signed it). Issue 15 items 1 and 5 (P27, P45). Runs in the
// verification worker, beside the analysis, so the main thread never re-reads a body (issue 14 item 1, P34).
import { hash } from 'node:crypto';
import { decodeBase64Strict, deriveKid, instantOf } from '@proto/core/verifier';
import type { NewKeyBinding, PassportKeys } from '@proto/store';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The classical kid of an artifact's composite signature (the verifier has checked it signed). */
function signerKid(artifact: unknown): string | undefined {
  const sig = isObject(artifact) ? artifact['composite_sig'] : undefined;
  const classical = isObject(sig) ? sig['classical'] : undefined;
  const kid = isObject(classical) ? classical['kid'] : undefined;
  return typeof kid === 'string' ? kid : undefined;
}

const DAY_MS = 86_400_000;

/**
 * When a listed key stops being one /verify accepts: the earlier of its `expires_at` and its `created_at` plus the
 * maximum key age (P204), read as the verifier reads them (a leap second at its earliest). Undefined when its
 * `created_at` cannot be read: the verifier counts such a key expired, so it is not bound. An unreadable
 * `expires_at` is kept as written; the directory counts it expired (P178).
 */
function ageCappedExpiry(
  createdAt: unknown,
  expires: unknown,
  maxKeyAgeDays: number,
): string | null | undefined {
  const created = typeof createdAt === 'string' ? instantOf(createdAt, 'earliest') : Number.NaN;
  if (!Number.isFinite(created)) return undefined;
  const agedAt = created + maxKeyAgeDays * DAY_MS;
  if (typeof expires === 'string') {
    const at = instantOf(expires, 'earliest');
    if (Number.isNaN(at) || at <= agedAt) return expires;
  }
  // Beyond the years Date can write, the age limit is no limit.
  return Number.isFinite(new Date(agedAt).getTime()) ? new Date(agedAt).toISOString() : null;
}

/** An RPR's `expires_at` for the directory: null when it has none; a non-string (schema-refused) counts as expired. */
const rprExpiry = (expires: unknown): string | null =>
  expires === null || expires === undefined ? null : typeof expires === 'string' ? expires : '';

/**
 * Whom a V2 bundle names and which kids signed its passport and its RPR: what P45's continuity compares with the
 * key directory. Handed to the main thread with every verdict that hands over a passport, in full or by its evidence
 * alone, so that /verify's warning of a foreign party (P501, P503) never depends on what the feeder kept (P555).
 */
export interface BundleParties {
  readonly agentId: string;
  readonly passportSignerKid?: string;
  readonly humanId?: string;
  readonly principalSignerKid?: string;
  /** The RPR payload's hash (P600: the directory names the agent first bound under it when that is another). */
  readonly rprHash?: string;
}

/** A bundle's passport keys before the evidence (a verified bundle's hash) is known (P123). */
export interface PassportKeysDraft {
  readonly parties: BundleParties;
  /**
   * SHA-256 of everything the directory would apply but the evidence: two bundles with the same identity
   * apply alike, so the first one's hash can stand as the evidence of the next (the store keeps the first
   * evidence of a binding anyway).
   */
  readonly identity: string;
  withEvidence(evidence: string): PassportKeys;
}

/**
 * What a V2 bundle says about its agent's keys (bindings, the passport's time, listed and marked kids), before
 * the evidence (a verified bundle's hash) is known; read from the request as it is (not the covered view). Keys
 * whose kid does not derive from their bytes, or whose `created_at` cannot be read, are skipped; a binding expires
 * when /verify would refuse its key for age under `maxKeyAgeDays` (P204).
 */
export function passportKeysOf(request: unknown, maxKeyAgeDays: number): PassportKeysDraft | undefined {
  const signed = isObject(request) ? request['signed_bundle'] : undefined;
  const bundle = isObject(signed) ? signed['bundle'] : undefined;
  if (!isObject(bundle)) return undefined;
  const passport = isObject(bundle['agent_passport']) ? bundle['agent_passport']['payload'] : undefined;
  const rprEnvelope = bundle['responsible_principal_record'];
  const rpr = isObject(rprEnvelope) ? rprEnvelope['payload'] : undefined;
  // Equal to manifest.rpr_hash and to the payload's own hash once the bundle is verified (manifest_integrity).
  const rprHash =
    isObject(rprEnvelope) && typeof rprEnvelope['payload_hash'] === 'string'
      ? rprEnvelope['payload_hash']
      : undefined;
  if (!isObject(passport) || typeof passport['agent_id'] !== 'string') return undefined;
  const agentId = passport['agent_id'];
  const humanId = isObject(rpr) && typeof rpr['human_id'] === 'string' ? rpr['human_id'] : undefined;
  const rows: NewKeyBinding[] = [];
  const activeKids: string[] = [];
  const retiredKids: string[] = [];
  const add = (entries: unknown, role: NewKeyBinding['role'], subjects: readonly string[]) => {
    if (!Array.isArray(entries)) return;
    for (const entry of entries) {
      if (!isObject(entry)) continue;
      const { kid, alg, public_key_b64: b64, expires_at: expires, created_at: created, status } = entry;
      if (typeof kid !== 'string') continue;
      if (status !== undefined && status !== 'active') {
        retiredKids.push(kid);
        continue;
      }
      if (role === 'passport') activeKids.push(kid);
      if (typeof alg !== 'string' || typeof b64 !== 'string') continue;
      const raw = decodeBase64Strict(b64);
      if (raw === undefined || deriveKid(alg, raw) !== kid) continue;
      const expiresAt = ageCappedExpiry(created, expires, maxKeyAgeDays);
      if (expiresAt === undefined) continue;
      // Read as ageCappedExpiry read it (so finite here): the directory applies a later, lower age to it (P230).
      const createdAt = new Date(instantOf(created as string, 'earliest'));
      const keyCreatedAt = Number.isFinite(createdAt.getTime()) ? createdAt.toISOString() : null;
      for (const subject of subjects) {
        rows.push({
          kid,
          subject,
          alg,
          publicKeyB64: b64,
          role,
          evidence: '',
          expiresAt,
          keyCreatedAt,
        });
      }
    }
  };
  add(passport['keys'], 'passport', [agentId]);
  const speaksFor = humanId === undefined ? [agentId] : [humanId, agentId];
  add(isObject(rpr) ? rpr['binding_keys'] : undefined, 'principal', speaksFor);
  const createdAt = passport['created_at'];
  const keys: PassportKeys = {
    passportSignerKid: signerKid(bundle['agent_passport']),
    humanId,
    principalSignerKid: signerKid(bundle['responsible_principal_record']),
    // P560: orders the agent's principals (the newest RPR's human is its current one).
    principalIssuedAt: isObject(rpr) && typeof rpr['issued_at'] === 'string' ? rpr['issued_at'] : undefined,
    // P601: its human is current only until then; null (or absent) never expires, any other value is kept as written.
    principalExpiresAt: isObject(rpr) ? rprExpiry(rpr['expires_at']) : undefined,
    rprHash,
    agentId,
    createdAt: typeof createdAt === 'string' ? createdAt : undefined,
    evidence: '',
    activeKids,
    retiredKids,
    subjects: speaksFor,
    bindings: rows,
  };
  // Built above in a fixed member order from strings only, so equal keys stringify alike.
  const { passportSignerKid, principalSignerKid } = keys;
  return {
    parties: {
      agentId,
      ...(passportSignerKid === undefined ? {} : { passportSignerKid }),
      ...(humanId === undefined ? {} : { humanId }),
      ...(principalSignerKid === undefined ? {} : { principalSignerKid }),
      ...(rprHash === undefined ? {} : { rprHash }),
    },
    identity: hash('sha256', JSON.stringify(keys), 'hex'),
    withEvidence: (evidence) => ({
      ...keys,
      evidence,
      bindings: rows.map((row) => ({ ...row, evidence })),
    }),
  };
}
