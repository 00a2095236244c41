// Composite (Ed25519 + ML-DSA-65) signatures: wire parsing, signing, and per-half verification.
// PROTOCOL §4.1–4.2 (shape, pq_over_classical covers DSM ‖ classical sig), DECISIONS D8, D9 (stripping fails).

import type { ErrorName } from '../errors.ts';
import { type CoreError, coreError, err, ok, type Result } from '../result.ts';
import { ALGORITHM_SIZES, CLASSICAL_ALG, PQ_ALG, type SigningAlg } from './algorithms.ts';
import type { CryptoBackend } from './backend.ts';
import { concatBytes, decodeBase64Strict, encodeBase64, isBytes } from './bytes.ts';
import { domainSeparatedMessage } from './domain.ts';
import { isKidFormat } from './kid.ts';

export interface SignatureHalf {
  readonly alg: string;
  readonly kid: string;
  readonly sig_b64: string;
}

export type CompositeBinding = 'pq_over_classical' | 'classical_only';

export interface CompositeSignature {
  readonly classical: SignatureHalf;
  readonly pq: SignatureHalf | null;
  readonly binding: CompositeBinding;
}

export interface SigningKey {
  readonly alg: SigningAlg;
  readonly kid: string;
  readonly secretKey: Uint8Array;
}

export type HalfStatus = 'pass' | 'fail' | 'absent';

export interface CompositeVerifyResult {
  /** classical passes and, unless the binding is classical_only, the PQ half passes; no binding error. */
  readonly valid: boolean;
  readonly classical: HalfStatus;
  readonly pq: HalfStatus;
  readonly errors: readonly CoreError[];
}

const BINDINGS: readonly CompositeBinding[] = ['pq_over_classical', 'classical_only'];
const COMPOSITE_MEMBERS = ['classical', 'pq', 'binding'] as const;
const HALF_MEMBERS = ['alg', 'kid', 'sig_b64'] as const;

/**
 * Signs `payload` under `context`: the classical key signs DSM = UTF8(context) ‖ 0x00 ‖ payload;
 * with a PQ key, ML-DSA-65 signs DSM ‖ the 64 raw classical signature bytes and the binding is
 * `pq_over_classical`; without one the result is `classical_only` with `pq: null`. Keys are the
 * caller's own: a key of the wrong algorithm for its role or a malformed kid throws a TypeError
 * (as do the backend's own key checks), rather than producing a signature no verifier accepts.
 */
export function compositeSign(
  backend: CryptoBackend,
  keys: { classical: SigningKey; pq?: SigningKey },
  context: string,
  payload: Uint8Array,
): CompositeSignature {
  const { classical, pq } = keys;
  if (classical.alg !== CLASSICAL_ALG)
    throw new TypeError(`classical key must be ${CLASSICAL_ALG}, got ${classical.alg}`);
  if (!isKidFormat(classical.kid)) throw new TypeError('classical kid must be 32 lowercase hex characters');
  if (pq !== undefined) {
    if (pq.alg !== PQ_ALG) throw new TypeError(`pq key must be ${PQ_ALG}, got ${pq.alg}`);
    if (!isKidFormat(pq.kid)) throw new TypeError('pq kid must be 32 lowercase hex characters');
  }
  const dsm = domainSeparatedMessage(context, payload);
  const classicalSignature = backend.sign(classical.alg, classical.secretKey, dsm);
  const classicalHalf: SignatureHalf = Object.freeze({
    alg: classical.alg,
    kid: classical.kid,
    sig_b64: encodeBase64(classicalSignature),
  });
  if (pq === undefined)
    return Object.freeze({ classical: classicalHalf, pq: null, binding: 'classical_only' });
  const pqSignature = backend.sign(pq.alg, pq.secretKey, concatBytes(dsm, classicalSignature));
  const pqHalf: SignatureHalf = Object.freeze({
    alg: pq.alg,
    kid: pq.kid,
    sig_b64: encodeBase64(pqSignature),
  });
  return Object.freeze({ classical: classicalHalf, pq: pqHalf, binding: 'pq_over_classical' });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function hasExactly(value: Record<string, unknown>, members: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === members.length && members.every((m) => Object.hasOwn(value, m));
}

function schemaError(message: string): { readonly ok: false; readonly error: CoreError } {
  return err(coreError('BUNDLE_SCHEMA_INVALID', message));
}

function parseHalf(value: unknown, where: string): Result<SignatureHalf> {
  if (!isRecord(value)) return schemaError(`${where} must be an object`);
  if (!hasExactly(value, HALF_MEMBERS)) {
    return schemaError(
      `${where} must have exactly alg, kid and sig_b64 (got ${Object.keys(value).join(', ')})`,
    );
  }
  const { alg, kid, sig_b64 } = value;
  if (typeof alg !== 'string' || alg.length === 0)
    return schemaError(`${where}.alg must be a non-empty string`);
  if (!isKidFormat(kid)) return schemaError(`${where}.kid must be 32 lowercase hex characters`);
  if (typeof sig_b64 !== 'string') return schemaError(`${where}.sig_b64 must be a string`);
  return ok(Object.freeze({ alg, kid, sig_b64 }));
}

/**
 * Strict structure of a `composite_sig` (PROTOCOL §4.1): exactly `classical`, `pq` (a half or
 * null) and `binding`; each half exactly {alg, kid (32 lowercase hex), sig_b64 (string)}. Shape
 * problems are BUNDLE_SCHEMA_INVALID; a well-formed but unknown binding (e.g. upstream's
 * `independent`) is COMPOSITE_BINDING_INVALID. Base64 and lengths are checked at verification,
 * per half. Returns a frozen copy.
 */
export function parseCompositeSignature(value: unknown): Result<CompositeSignature> {
  if (!isRecord(value)) return schemaError('composite signature must be an object');
  if (!hasExactly(value, COMPOSITE_MEMBERS)) {
    return schemaError(
      `composite signature must have exactly classical, pq and binding (got ${Object.keys(value).join(', ')})`,
    );
  }
  const classical = parseHalf(value['classical'], 'composite signature classical');
  if (!classical.ok) return classical;
  let pq: SignatureHalf | null = null;
  if (value['pq'] !== null) {
    const parsed = parseHalf(value['pq'], 'composite signature pq');
    if (!parsed.ok) return parsed;
    pq = parsed.value;
  }
  const binding = value['binding'];
  if (typeof binding !== 'string') return schemaError('composite signature binding must be a string');
  if (!BINDINGS.includes(binding as CompositeBinding)) {
    return err(coreError('COMPOSITE_BINDING_INVALID', `unknown composite binding "${binding}"`));
  }
  return ok(Object.freeze({ classical: classical.value, pq, binding: binding as CompositeBinding }));
}

type Role = 'classical' | 'pq';

interface HalfOutcome {
  readonly status: 'pass' | 'fail';
  readonly error?: CoreError;
}

const ROLE_ALG: Readonly<Record<Role, SigningAlg>> = { classical: CLASSICAL_ALG, pq: PQ_ALG };
const ROLE_ERROR: Readonly<Record<Role, ErrorName>> = {
  classical: 'CLASSICAL_SIG_INVALID',
  pq: 'PQ_SIG_INVALID',
};

function fail(code: ErrorName, message: string): HalfOutcome {
  return { status: 'fail', error: coreError(code, message) };
}

/**
 * One half, in the order D8 asks for: algorithm accepted for the role and provided by the backend,
 * strict base64, exact signature length, a public key of the exact length, and only then crypto.
 */
function verifyHalf(
  backend: CryptoBackend,
  role: Role,
  half: SignatureHalf,
  publicKey: Uint8Array | undefined,
  message: Uint8Array | undefined,
): HalfOutcome {
  const expected = ROLE_ALG[role];
  const code = ROLE_ERROR[role];
  if (half.alg !== expected) {
    return fail(
      'ALGORITHM_UNAVAILABLE',
      `${role} signature algorithm "${half.alg}" is not accepted (expected ${expected})`,
    );
  }
  if (!backend.algorithms.includes(expected)) {
    return fail(
      'ALGORITHM_UNAVAILABLE',
      `${expected} is not available in the ${backend.name} crypto backend`,
    );
  }
  const sizes = ALGORITHM_SIZES[expected];
  const signature = decodeBase64Strict(half.sig_b64);
  if (signature === undefined)
    return fail(code, `${role} sig_b64 is not strict standard base64 (with padding)`);
  if (signature.length !== sizes.signature) {
    return fail(
      code,
      `${role} ${expected} signature must be ${sizes.signature} bytes, got ${signature.length}`,
    );
  }
  if (publicKey === undefined) return fail('KID_MISMATCH', `no public key for kid ${half.kid}`);
  if (!isBytes(publicKey) || publicKey.length !== sizes.publicKey) {
    return fail(code, `${role} ${expected} public key for kid ${half.kid} must be ${sizes.publicKey} bytes`);
  }
  if (message === undefined) {
    return fail(code, `${role} signature covers the classical signature, which is not strict base64`);
  }
  return backend.verify(expected, publicKey, message, signature)
    ? { status: 'pass' }
    : fail(code, `${role} ${expected} signature (kid ${half.kid}) does not verify`);
}

function isHalfShape(value: unknown): value is SignatureHalf {
  return (
    isRecord(value) &&
    typeof value['alg'] === 'string' &&
    typeof value['kid'] === 'string' &&
    typeof value['sig_b64'] === 'string'
  );
}

/**
 * Verifies both halves of a composite signature over `payload` under `context` and reports each
 * half separately; which halves a mode requires is the policy's decision (D9), made from these
 * statuses. Binding rules (PROTOCOL §4.2, D9):
 * - `pq_over_classical` with `pq: null` is stripping: classical is still evaluated, pq is
 *   `absent`, COMPOSITE_BINDING_INVALID, never valid.
 * - `classical_only` with a PQ half: COMPOSITE_BINDING_INVALID, pq `fail`, never valid.
 * - The PQ half verifies over DSM ‖ the raw classical signature bytes.
 * Never throws: malformed input yields `valid: false` with an error.
 */
export function compositeVerify(
  backend: CryptoBackend,
  sig: CompositeSignature,
  keys: { classical?: Uint8Array; pq?: Uint8Array },
  context: string,
  payload: Uint8Array,
): CompositeVerifyResult {
  try {
    if (!isRecord(sig) || !isHalfShape(sig.classical) || !(sig.pq === null || isHalfShape(sig.pq))) {
      return Object.freeze({
        valid: false,
        classical: 'fail',
        pq: isRecord(sig) && sig.pq === null ? 'absent' : 'fail',
        errors: Object.freeze([coreError('BUNDLE_SCHEMA_INVALID', 'malformed composite signature')]),
      });
    }
    if (typeof context !== 'string' || !isBytes(payload)) {
      return Object.freeze({
        valid: false,
        classical: 'fail',
        pq: sig.pq === null ? 'absent' : 'fail',
        errors: Object.freeze([coreError('INTERNAL_ERROR', 'context must be a string and payload bytes')]),
      });
    }
    const errors: CoreError[] = [];
    const dsm = domainSeparatedMessage(context, payload);
    const classical = verifyHalf(backend, 'classical', sig.classical, keys?.classical, dsm);
    if (classical.error) errors.push(classical.error);

    let pq: HalfStatus;
    let bindingOk = true;
    if (sig.binding === 'pq_over_classical') {
      if (sig.pq === null) {
        pq = 'absent';
        bindingOk = false;
        errors.push(
          coreError('COMPOSITE_BINDING_INVALID', 'binding pq_over_classical has no pq signature (stripped)'),
        );
      } else {
        const classicalBytes = decodeBase64Strict(sig.classical.sig_b64);
        const pqMessage = classicalBytes === undefined ? undefined : concatBytes(dsm, classicalBytes);
        const outcome = verifyHalf(backend, 'pq', sig.pq, keys?.pq, pqMessage);
        pq = outcome.status;
        if (outcome.error) errors.push(outcome.error);
      }
    } else if (sig.binding === 'classical_only') {
      if (sig.pq === null) {
        pq = 'absent';
      } else {
        pq = 'fail';
        bindingOk = false;
        errors.push(coreError('COMPOSITE_BINDING_INVALID', 'binding classical_only must have pq: null'));
      }
    } else {
      pq = sig.pq === null ? 'absent' : 'fail';
      bindingOk = false;
      errors.push(
        coreError('COMPOSITE_BINDING_INVALID', `unknown composite binding "${String(sig.binding)}"`),
      );
    }

    const valid =
      bindingOk && classical.status === 'pass' && (sig.binding === 'classical_only' ? true : pq === 'pass');
    return Object.freeze({ valid, classical: classical.status, pq, errors: Object.freeze(errors) });
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    return Object.freeze({
      valid: false,
      classical: 'fail',
      pq: 'fail',
      errors: Object.freeze([coreError('INTERNAL_ERROR', `composite verification failed: ${message}`)]),
    });
  }
}
