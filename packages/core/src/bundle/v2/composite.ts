// Evaluates one composite signature under a verification mode: which halves are verified, and how.
// PROTOCOL §4.1–4.3 (wire shape, PQ half covers DSM ‖ classical sig); DECISIONS D8 (keys), D9 (mode rules).

import { type FramedPayload, framedMessages } from '../../crypto/domain.ts';
import {
  ALGORITHM_SIZES,
  type CryptoBackend,
  domainSeparatedMessages,
  type SigningAlg,
} from '../../crypto/index.ts';
import { decodeBase64StrictShared } from '../../encoding/base64.ts';
import type { ErrorName } from '../../errors.ts';
import { MODE_REQUIREMENTS } from '../../policy/modes.ts';
import { describe, isRecord, prop, propRecord } from '../json.ts';
import type { VerificationMode } from '../types.ts';
import type { KeyDirectory, KeyRecord } from './keys.ts';

export type HalfOutcome = 'pass' | 'fail' | 'absent' | 'skipped';
type Half = 'classical' | 'pq';

export interface CompositeIssue {
  readonly half: Half;
  readonly code: ErrorName;
  readonly message: string;
}

export interface CompositeOutcome {
  readonly classical: HalfOutcome;
  readonly pq: HalfOutcome;
  /** Failures of the signature itself (reported under the signature's check). */
  readonly issues: readonly CompositeIssue[];
  /** Keys whose kid does not match their derivation (reported under key_validity, E303). */
  readonly kidMismatches: readonly KeyRecord[];
  readonly warnings: readonly string[];
  /** Keys whose half was evaluated (their validity is checked at finalize). */
  readonly usedKeys: readonly KeyRecord[];
}

export interface CompositeEnvironment {
  readonly backend: CryptoBackend;
  readonly keys: KeyDirectory;
  readonly acceptedSigning: readonly string[];
  readonly advisoryRejected: readonly string[];
  readonly requireCompositeBinding: boolean;
}

export interface CompositeRequest {
  /** Names the signature in messages: `Bundle`, `intent`, `checkpoint ckpt-…`. */
  readonly label: string;
  readonly signature: unknown;
  /** Full context string, e.g. `DCP-AI.v2.Bundle` (D1: always the configured profile's). */
  readonly context: string;
  /** Canonical bytes being signed. */
  readonly payload: Uint8Array;
  /** The same bytes behind `context`'s prefix: the messages are then built without a copy (P128). */
  readonly framed?: FramedPayload;
  /** The mode, or `both` for PQ checkpoints (D6: both halves always required). */
  readonly mode: VerificationMode | 'both';
}

const CLASSICAL: SigningAlg = 'ed25519';
/** D6: a checkpoint needs both halves, whatever the mode. */
const CHECKPOINT_REQUIREMENTS = Object.freeze({ classical: 'required', pq: 'required' } as const);
const NO_BYTES = new Uint8Array(0);
const HALF_NAME: Readonly<Record<Half, string>> = { classical: 'Classical', pq: 'PQ' };
const INVALID_CODE: Readonly<Record<Half, ErrorName>> = {
  classical: 'CLASSICAL_SIG_INVALID',
  pq: 'PQ_SIG_INVALID',
};

function safeVerify(
  backend: CryptoBackend,
  alg: SigningAlg,
  key: Uint8Array,
  msg: Uint8Array,
  sig: Uint8Array,
): boolean {
  try {
    return backend.verify(alg, key, msg, sig) === true;
  } catch {
    return false;
  }
}

/**
 * Verifies the halves the mode asks for, each at most once:
 * - classical_only: Ed25519 verified; PQ not evaluated (`skipped`).
 * - hybrid_preferred: Ed25519 verified; a present PQ half must verify (upstream only warns; D9
 *   fails it); an absent one is `absent` with a warning, plus a downgrade warning when the passport
 *   holds an ML-DSA key.
 * - hybrid_required: both verified; binding must be `pq_over_classical` when composite binding is
 *   required; an absent PQ half is E103.
 * - pq_only: ML-DSA verified; Ed25519 not evaluated (its bytes still feed the PQ message).
 * - both (checkpoints): both halves required.
 * In every mode `pq_over_classical` with `pq: null` is stripping (E102), and so is a PQ half beside
 * `classical_only` or an unknown binding.
 */
export function evaluateComposite(env: CompositeEnvironment, request: CompositeRequest): CompositeOutcome {
  const issues: CompositeIssue[] = [];
  const warnings: string[] = [];
  const usedKeys: KeyRecord[] = [];
  const kidMismatches: KeyRecord[] = [];
  const label = request.label;
  const fail = (half: Half, code: ErrorName, message: string) =>
    issues.push({ half, code, message: `${label}: ${message}` });

  const sig = request.signature;
  if (!isRecord(sig) || !isRecord(prop(sig, 'classical'))) {
    fail('classical', 'SIGNATURE_MISSING', 'composite signature missing or malformed');
    return { classical: 'fail', pq: 'fail', issues, kidMismatches, warnings, usedKeys };
  }
  const classicalPart = propRecord(sig, 'classical')!;
  const pqRaw = prop(sig, 'pq');
  const pqPart = isRecord(pqRaw) ? pqRaw : undefined;
  const binding = prop(sig, 'binding');
  const modeName = request.mode === 'both' ? 'checkpoint' : request.mode;
  const req = request.mode === 'both' ? CHECKPOINT_REQUIREMENTS : MODE_REQUIREMENTS[request.mode];

  // Binding rules hold whatever the mode (PROTOCOL §4.2, D9).
  if (binding !== 'pq_over_classical' && binding !== 'classical_only') {
    fail('pq', 'COMPOSITE_BINDING_INVALID', `unknown composite binding ${describe(binding)}`);
  } else if (binding === 'pq_over_classical' && pqPart === undefined) {
    fail(
      'pq',
      'COMPOSITE_BINDING_INVALID',
      'binding is pq_over_classical but the PQ signature is missing (stripped)',
    );
  } else if (binding === 'classical_only' && pqRaw !== null) {
    fail('pq', 'COMPOSITE_BINDING_INVALID', 'binding is classical_only but a PQ member is present');
  }

  const classicalSigText = prop(classicalPart, 'sig_b64');
  const classicalSig =
    typeof classicalSigText === 'string' ? decodeBase64StrictShared(classicalSigText) : undefined;
  const framed = request.framed;
  const messages =
    framed !== undefined && framed.context === request.context && framed.payload === request.payload
      ? framedMessages(framed, classicalSig ?? NO_BYTES)
      : domainSeparatedMessages(request.context, request.payload, classicalSig ?? NO_BYTES);
  const dsm = messages.dsm;

  const verifyHalf = (half: Half, part: Readonly<Record<string, unknown>>, message: Uint8Array): boolean => {
    const alg = prop(part, 'alg');
    const name = HALF_NAME[half];
    if (typeof alg !== 'string' || !Object.hasOwn(ALGORITHM_SIZES, alg)) {
      fail(half, 'ALGORITHM_UNAVAILABLE', `${name} algorithm ${describe(alg)} is not available`);
      return false;
    }
    const signingAlg = alg as SigningAlg;
    if ((half === 'classical') !== (signingAlg === CLASSICAL)) {
      fail(
        half,
        'COMPOSITE_BINDING_INVALID',
        `${signingAlg} cannot be the ${half} half of a composite signature`,
      );
      return false;
    }
    if (env.advisoryRejected.includes(signingAlg)) {
      fail(half, 'POLICY_VIOLATION', `${name} algorithm ${signingAlg} rejected by active advisory`);
      return false;
    }
    if (!env.acceptedSigning.includes(signingAlg)) {
      fail(half, 'POLICY_VIOLATION', `${name} algorithm ${signingAlg} not accepted by verifier policy`);
      return false;
    }
    if (!env.backend.algorithms.includes(signingAlg)) {
      fail(
        half,
        'ALGORITHM_UNAVAILABLE',
        `${name} algorithm ${signingAlg} is not available in the ${env.backend.name} backend`,
      );
      return false;
    }
    const kid = prop(part, 'kid');
    const record = env.keys.find(kid);
    if (record === undefined) {
      fail(half, 'KID_MISMATCH', `${name} signer key kid=${describe(kid)} not found in passport or RPR`);
      return false;
    }
    if (record.alg !== signingAlg) {
      fail(
        half,
        'KID_MISMATCH',
        `key ${record.kid} is ${record.alg} but the ${half} half says ${signingAlg}`,
      );
      return false;
    }
    const key = env.keys.decode(record);
    if (key.publicKey === undefined) {
      fail(half, 'KID_MISMATCH', key.problem ?? `key ${record.kid} is unusable`);
      return false;
    }
    if (!key.kidMatches) kidMismatches.push(record);
    const sigBytes = half === 'classical' ? classicalSig : decodeSig(prop(part, 'sig_b64'));
    if (sigBytes === undefined || sigBytes.length !== ALGORITHM_SIZES[signingAlg].signature) {
      fail(
        half,
        INVALID_CODE[half],
        `${name} signature is not strict base64 of ${ALGORITHM_SIZES[signingAlg].signature} bytes`,
      );
      return false;
    }
    usedKeys.push(record);
    if (!safeVerify(env.backend, signingAlg, key.publicKey, message, sigBytes)) {
      fail(half, INVALID_CODE[half], `${name} signature invalid (${modeName})`);
      return false;
    }
    return true;
  };

  let classical: HalfOutcome = 'skipped';
  if (req.classical === 'required') classical = verifyHalf('classical', classicalPart, dsm) ? 'pass' : 'fail';

  let pq: HalfOutcome;
  if (pqPart === undefined) {
    if (req.pq === 'required') {
      if (env.requireCompositeBinding && binding !== 'pq_over_classical' && binding === 'classical_only') {
        fail(
          'pq',
          'COMPOSITE_BINDING_INVALID',
          'verifier policy requires composite binding (pq_over_classical)',
        );
      }
      fail('pq', 'SIGNATURE_MISSING', `PQ signature missing (${modeName} requires it)`);
      pq = 'fail';
    } else if (req.pq === 'if_present') {
      pq = 'absent';
      warnings.push(
        `${label}: PQ signature absent (hybrid_preferred: accepted without post-quantum protection)`,
      );
      if (env.keys.passportHolds('ml-dsa-65')) {
        warnings.push(
          `${label}: classical-only signature although the passport holds an ML-DSA-65 key (possible downgrade)`,
        );
      }
    } else {
      pq = 'skipped';
    }
  } else if (req.pq === 'ignored') {
    pq = 'skipped';
  } else if (binding !== 'pq_over_classical') {
    pq = 'fail';
  } else if (classicalSig === undefined) {
    fail(
      'pq',
      'PQ_SIG_INVALID',
      'PQ half cannot be checked: the classical signature it covers is not strict base64',
    );
    pq = 'fail';
  } else {
    pq = verifyHalf('pq', pqPart, messages.withSuffix) ? 'pass' : 'fail';
  }
  // Any binding issue fails the PQ half even when it was not otherwise evaluated.
  if (hasIssueOf(issues, 'pq')) pq = 'fail';
  if (hasIssueOf(issues, 'classical')) classical = 'fail';
  return { classical, pq, issues, kidMismatches, warnings, usedKeys };
}

function hasIssueOf(issues: readonly CompositeIssue[], half: Half): boolean {
  for (let i = 0; i < issues.length; i++) if ((issues[i] as CompositeIssue).half === half) return true;
  return false;
}

function decodeSig(value: unknown): Uint8Array | undefined {
  return typeof value === 'string' ? decodeBase64StrictShared(value) : undefined;
}
