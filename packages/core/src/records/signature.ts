// Signatures of the flat /v2 record kinds: which context signs each kind, which member holds the signature,
// which fields name the record's subject, and how to sign and verify one. PROTOCOL §3 (contexts, payload rule), §4.

import { canonicalBytesV2 } from '../canonical/index.ts';
import type { CryptoBackend } from '../crypto/backend.ts';
import {
  type CompositeSignature,
  compositeSign,
  compositeVerify,
  parseCompositeSignature,
  type SigningKey,
} from '../crypto/composite.ts';
import { deriveKid } from '../crypto/kid.ts';
import type { ErrorName } from '../errors.ts';
import { type ContextName, contextString, type ProtocolProfile } from '../profile.ts';

export interface RecordSignatureRule {
  readonly context: ContextName;
  /** The member holding the composite signature; the signed payload is the record without it. */
  readonly signatureMember: 'composite_sig' | 'human_composite_sig';
  /**
   * Fields naming who the record is about: a key bound to any id found there (string or array of
   * strings) may sign it; the verification service asks a record naming `agent_id` beside a human for
   * a key acting for that agent (P199). Empty: no party is named, so only an administrative write can
   * store it.
   */
  readonly subjectFields: readonly string[];
}

const rule = (
  context: ContextName,
  subjectFields: readonly string[],
  signatureMember: RecordSignatureRule['signatureMember'] = 'composite_sig',
): RecordSignatureRule =>
  Object.freeze({ context, signatureMember, subjectFields: Object.freeze(subjectFields) });

/** kind → context → subject fields (PROTOCOL §3 context table; RECORDS.md repeats it for readers). */
export const RECORD_SIGNATURE_RULES: Readonly<Record<string, RecordSignatureRule>> = Object.freeze({
  commissioning_certificate: rule('Lifecycle', ['agent_id', 'human_id']),
  vitality_report: rule('Lifecycle', ['agent_id']),
  decommissioning_record: rule('Lifecycle', ['agent_id', 'human_id']),
  lifecycle_transition: rule('Lifecycle', ['agent_id']),
  digital_testament: rule('Succession', ['agent_id']),
  succession_record: rule('Succession', ['predecessor_agent_id']),
  memory_transfer_manifest: rule('Succession', ['predecessor_agent_id']),
  dispute_record: rule('Dispute', ['initiator_agent_id']),
  arbitration_resolution: rule('Dispute', ['arbitrator_ids']),
  jurisprudence_bundle: rule('Dispute', []),
  objection_record: rule('Dispute', ['agent_id']),
  rights_declaration: rule('Rights', ['agent_id']),
  obligation_record: rule('Rights', ['agent_id', 'human_id']),
  rights_violation_report: rule('Rights', ['agent_id']),
  delegation_mandate: rule('Delegation', ['human_id'], 'human_composite_sig'),
  principal_mirror: rule('Delegation', ['agent_id', 'human_id']),
  interaction_record: rule('Delegation', ['agent_id']),
  advisory_declaration: rule('Awareness', ['agent_id', 'human_id']),
  awareness_threshold: rule('Awareness', ['agent_id', 'human_id']),
});

/**
 * P497: the HumanConfirmationV2 a succession record carries as `human_consent` is signed by its human on its own (no
 * route stores it alone, so it is not in RECORD_SIGNATURE_RULES); signRecord and verifyRecordSignature take this kind.
 */
export const HUMAN_CONFIRMATION = 'human_confirmation';

const NESTED_SIGNATURE_RULES: Readonly<Record<string, RecordSignatureRule>> = Object.freeze({
  [HUMAN_CONFIRMATION]: rule('HumanConfirmation', ['human_id']),
});

export function recordSignatureRule(kind: string): RecordSignatureRule | undefined {
  if (Object.hasOwn(RECORD_SIGNATURE_RULES, kind)) return RECORD_SIGNATURE_RULES[kind];
  return Object.hasOwn(NESTED_SIGNATURE_RULES, kind) ? NESTED_SIGNATURE_RULES[kind] : undefined;
}

/** The ids a record names as its subject (the values of its rule's subject fields). */
export function recordSubjects(kind: string, record: Readonly<Record<string, unknown>>): string[] {
  const found = recordSignatureRule(kind);
  if (found === undefined) return [];
  const ids: string[] = [];
  for (const field of found.subjectFields) {
    const value = record[field];
    if (typeof value === 'string') ids.push(value);
    else if (Array.isArray(value)) for (const item of value) if (typeof item === 'string') ids.push(item);
  }
  return [...new Set(ids)];
}

/** The bytes a record's signature covers: jcs(record without its signature member). */
export function recordSigningPayload(
  kind: string,
  record: Readonly<Record<string, unknown>>,
): Uint8Array | undefined {
  const found = recordSignatureRule(kind);
  if (found === undefined) return undefined;
  const { [found.signatureMember]: _signature, ...payload } = record;
  const bytes = canonicalBytesV2(payload);
  return bytes.ok ? bytes.value : undefined;
}

/** Signs `record` the way the upstream SDK's record builders do; returns a copy with the signature member set. */
export function signRecord<T extends Record<string, unknown>>(
  backend: CryptoBackend,
  profile: ProtocolProfile,
  kind: string,
  record: T,
  keys: { classical: SigningKey; pq?: SigningKey },
): T {
  const found = recordSignatureRule(kind);
  if (found === undefined) throw new TypeError(`no signature rule for record kind ${kind}`);
  const payload = recordSigningPayload(kind, record);
  if (payload === undefined) throw new TypeError(`record of kind ${kind} cannot be canonicalised`);
  const sig = compositeSign(backend, keys, contextString(profile, found.context), payload);
  return { ...record, [found.signatureMember]: sig };
}

/** A public key as a key directory knows it. */
export interface PublicKeyEntry {
  readonly alg: string;
  readonly publicKey: Uint8Array;
}

export type RecordSignatureVerdict =
  | {
      readonly ok: true;
      readonly classicalKid: string;
      readonly pqKid: string | null;
      readonly binding: CompositeSignature['binding'];
    }
  | {
      readonly ok: false;
      /** `unknown_key`: the signature names a kid the caller does not know (not a signature defect). */
      readonly reason: 'malformed' | 'unknown_key' | 'invalid';
      readonly code: ErrorName;
      readonly message: string;
      readonly kid?: string;
    };

/**
 * Verifies a record's composite signature under its kind's context in `profile`. `lookup` gives the
 * public key of a kid; the kid is re-derived from that key so a directory entry under a wrong kid
 * cannot be used. Both halves are required unless the binding is `classical_only` and `requirePq` is false.
 */
export function verifyRecordSignature(
  backend: CryptoBackend,
  profile: ProtocolProfile,
  kind: string,
  record: Readonly<Record<string, unknown>>,
  lookup: (kid: string) => PublicKeyEntry | undefined,
  options: { readonly requirePq?: boolean } = {},
): RecordSignatureVerdict {
  const found = recordSignatureRule(kind);
  if (found === undefined) {
    return {
      ok: false,
      reason: 'malformed',
      code: 'INTERNAL_ERROR',
      message: `no signature rule for ${kind}`,
    };
  }
  const raw = record[found.signatureMember];
  if (raw === undefined || raw === null) {
    return {
      ok: false,
      reason: 'malformed',
      code: 'SIGNATURE_MISSING',
      message: `${kind} has no ${found.signatureMember}`,
    };
  }
  const parsed = parseCompositeSignature(raw);
  if (!parsed.ok) {
    return { ok: false, reason: 'malformed', code: 'BUNDLE_SCHEMA_INVALID', message: parsed.error.message };
  }
  const sig = parsed.value;
  if (options.requirePq === true && sig.binding !== 'pq_over_classical') {
    return {
      ok: false,
      reason: 'invalid',
      code: 'COMPOSITE_BINDING_INVALID',
      message: `${kind} must carry a pq_over_classical composite signature`,
    };
  }
  const classicalKey = lookup(sig.classical.kid);
  if (classicalKey === undefined) {
    return unknownKey(sig.classical.kid);
  }
  const keyMismatch = kidMismatch(sig.classical.kid, sig.classical.alg, classicalKey);
  if (keyMismatch !== undefined) return keyMismatch;
  let pqKey: PublicKeyEntry | undefined;
  if (sig.pq !== null) {
    pqKey = lookup(sig.pq.kid);
    if (pqKey === undefined) return unknownKey(sig.pq.kid);
    const pqMismatch = kidMismatch(sig.pq.kid, sig.pq.alg, pqKey);
    if (pqMismatch !== undefined) return pqMismatch;
  }
  const payload = recordSigningPayload(kind, record);
  if (payload === undefined) {
    return {
      ok: false,
      reason: 'malformed',
      code: 'ARTIFACT_SCHEMA_INVALID',
      message: `${kind} is not canonical JSON`,
    };
  }
  const result = compositeVerify(
    backend,
    sig,
    { classical: classicalKey.publicKey, ...(pqKey === undefined ? {} : { pq: pqKey.publicKey }) },
    contextString(profile, found.context),
    payload,
  );
  if (!result.valid) {
    const code: ErrorName =
      result.classical !== 'pass'
        ? 'CLASSICAL_SIG_INVALID'
        : result.pq === 'fail'
          ? 'PQ_SIG_INVALID'
          : 'COMPOSITE_BINDING_INVALID';
    const detail = result.errors[0]?.message ?? 'signature does not verify';
    return {
      ok: false,
      reason: 'invalid',
      code,
      message: `${kind} ${found.signatureMember} does not verify under ${contextString(profile, found.context)}: ${detail}`,
    };
  }
  return { ok: true, classicalKid: sig.classical.kid, pqKid: sig.pq?.kid ?? null, binding: sig.binding };
}

const unknownKey = (kid: string): RecordSignatureVerdict => ({
  ok: false,
  reason: 'unknown_key',
  code: 'KID_MISMATCH',
  message: `key ${kid} is not known here`,
  kid,
});

function kidMismatch(kid: string, alg: string, key: PublicKeyEntry): RecordSignatureVerdict | undefined {
  if (key.alg === alg && deriveKid(alg, key.publicKey) === kid) return undefined;
  return {
    ok: false,
    reason: 'invalid',
    code: 'KID_MISMATCH',
    message: `kid ${kid} does not derive from the ${alg} key it names`,
    kid,
  };
}
