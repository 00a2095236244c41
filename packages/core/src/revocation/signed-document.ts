// Ed25519 signatures over context ‖ 0x00 ‖ jcs(document without `signature`), and trusted-key matching.
// DECISIONS D20 (revocation list) and D21 (attestation, same construction); PROTOCOL §3 (domain separation).

import { canonicalBytesV2 } from '../canonical/index.ts';
import type { CryptoBackend } from '../crypto/backend.ts';
import { domainSeparatedMessage } from '../crypto/domain.ts';
import { deriveKid } from '../crypto/kid.ts';
import { selectCryptoBackend } from '../crypto/select-backend.ts';
import { bytesEqual, decodeBase64Strict, encodeBase64 } from '../encoding/index.ts';
import { type ContextName, contextString, DEFAULT_PROFILE, type ProtocolProfile } from '../profile.ts';
import { coreError, err, ok, type Result } from '../result.ts';
import { formatSchemaIssues } from '../schema/issues.ts';
import { validateSchema } from '../schema/registry.ts';
import { instantOf } from '../time/instant.ts';
import type { Ed25519SignatureObject, TrustedKey, TrustedKeyInput } from './types.ts';

const ED25519_PUBLIC_KEY_BYTES = 32;
const ED25519_SECRET_KEY_BYTES = 64;
const ED25519_SIGNATURE_BYTES = 64;

export interface SigningOptions {
  readonly profile?: ProtocolProfile;
  readonly backend?: CryptoBackend;
}

/** The bytes a D20/D21 signature covers: UTF8(context) ‖ 0x00 ‖ jcs(document without `signature`). */
export function signedMessage(
  profile: ProtocolProfile,
  context: Extract<ContextName, 'Revocation' | 'JurisdictionAttestation'>,
  document: Readonly<Record<string, unknown>>,
): Result<Uint8Array> {
  const { signature: _signature, ...unsigned } = document;
  const bytes = canonicalBytesV2(unsigned);
  if (!bytes.ok) return bytes;
  return ok(domainSeparatedMessage(contextString(profile, context), bytes.value));
}

/**
 * Signs with an Ed25519 secret key in the SDK layout (seed ‖ public key, 64 bytes). A key of the
 * wrong length or whose halves do not belong together is an error, never an exception.
 */
export function signEd25519(
  message: Uint8Array,
  secretKey: Uint8Array,
  backend: CryptoBackend,
): Result<Ed25519SignatureObject> {
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== ED25519_SECRET_KEY_BYTES) {
    return err(coreError('ALGORITHM_UNAVAILABLE', 'Ed25519 secret key must be 64 bytes (seed ‖ public key)'));
  }
  try {
    const sig = backend.sign('ed25519', secretKey, message);
    return ok({
      alg: 'ed25519',
      public_key_b64: encodeBase64(secretKey.subarray(32, 64)),
      sig_b64: encodeBase64(sig),
    });
  } catch (error) {
    return err(
      coreError(
        'ALGORITHM_UNAVAILABLE',
        `cannot sign: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }
}

export function backendOf(options: SigningOptions | undefined): CryptoBackend {
  return options?.backend ?? selectCryptoBackend();
}

/** A trusted key with its decoded bytes and parsed window. */
interface ResolvedKey {
  readonly key: TrustedKey;
  readonly bytes: Uint8Array;
  readonly from: number | undefined;
  readonly until: number | undefined;
}

/**
 * Checks one trusted-key entry: strict base64 of a 32-byte Ed25519 key; a window, when given, made
 * of ISO 8601 times with `valid_from` not after `valid_until`. `key_id` defaults to the derived kid.
 */
export function parseTrustedKey(input: unknown): Result<TrustedKey> {
  const entry: Record<string, unknown> | undefined =
    typeof input === 'string'
      ? { public_key_b64: input }
      : typeof input === 'object' && input !== null && !Array.isArray(input)
        ? (input as Record<string, unknown>)
        : undefined;
  if (entry === undefined) {
    return err(
      coreError('ARTIFACT_SCHEMA_INVALID', 'a trusted key is a base64 string or {public_key_b64, …}'),
    );
  }
  const b64 = entry['public_key_b64'];
  const bytes = typeof b64 === 'string' ? decodeBase64Strict(b64) : undefined;
  if (bytes === undefined || bytes.length !== ED25519_PUBLIC_KEY_BYTES) {
    return err(
      coreError(
        'ARTIFACT_SCHEMA_INVALID',
        'a trusted key must be standard base64 of a 32-byte Ed25519 public key',
      ),
    );
  }
  // A key's window is read narrow at a leap second (P178): it starts no earlier and ends no later than written.
  const window: { valid_from?: string | null; valid_until?: string | null } = {};
  for (const field of ['valid_from', 'valid_until'] as const) {
    const value = entry[field];
    if (value === undefined || value === null) {
      if (value === null) window[field] = null;
      continue;
    }
    if (typeof value !== 'string' || Number.isNaN(instantOf(value, 'earliest'))) {
      return err(
        coreError('ARTIFACT_SCHEMA_INVALID', `trusted key ${field} must be an ISO 8601 time or null`),
      );
    }
    window[field] = value;
  }
  if (
    typeof window.valid_from === 'string' &&
    typeof window.valid_until === 'string' &&
    instantOf(window.valid_from, 'latest') > instantOf(window.valid_until, 'earliest')
  ) {
    return err(coreError('ARTIFACT_SCHEMA_INVALID', 'trusted key valid_from is after valid_until'));
  }
  const keyId = entry['key_id'];
  if (keyId !== undefined && (typeof keyId !== 'string' || keyId.length === 0)) {
    return err(coreError('ARTIFACT_SCHEMA_INVALID', 'trusted key key_id must be a non-empty string'));
  }
  return ok({
    key_id: typeof keyId === 'string' ? keyId : deriveKid('ed25519', bytes),
    public_key_b64: b64 as string,
    ...window,
  });
}

function resolveKeys(inputs: readonly TrustedKeyInput[]): ResolvedKey[] {
  const resolved: ResolvedKey[] = [];
  // Malformed entries never match anything; configuration parsers report them before they get here.
  for (const input of Array.isArray(inputs) ? inputs : []) {
    const parsed = parseTrustedKey(input);
    if (!parsed.ok) continue;
    const key = parsed.value;
    resolved.push({
      key,
      bytes: decodeBase64Strict(key.public_key_b64) as Uint8Array,
      from: typeof key.valid_from === 'string' ? instantOf(key.valid_from, 'latest') : undefined,
      until: typeof key.valid_until === 'string' ? instantOf(key.valid_until, 'earliest') : undefined,
    });
  }
  return resolved;
}

export type SignatureCheck =
  | { readonly ok: true; readonly signer: TrustedKey }
  | { readonly ok: false; readonly reason: 'untrusted_key' | 'bad_signature'; readonly message: string };

/**
 * Finds the signature's public key among the trusted keys (valid at `signedAt` when the key has a
 * window), then verifies the signature. Strict base64 and exact lengths before any crypto (D8).
 */
export function checkSignature(
  signature: Ed25519SignatureObject,
  message: Uint8Array,
  trustedKeys: readonly TrustedKeyInput[],
  signedAt: number,
  backend: CryptoBackend,
): SignatureCheck {
  const publicKey = decodeBase64Strict(signature.public_key_b64);
  if (publicKey === undefined || publicKey.length !== ED25519_PUBLIC_KEY_BYTES) {
    return {
      ok: false,
      reason: 'bad_signature',
      message: 'signature.public_key_b64 is not a 32-byte Ed25519 key',
    };
  }
  const candidates = resolveKeys(trustedKeys).filter((k) => bytesEqual(k.bytes, publicKey));
  if (candidates.length === 0) {
    return {
      ok: false,
      reason: 'untrusted_key',
      message: `signing key ${deriveKid('ed25519', publicKey)} is not among the trusted keys`,
    };
  }
  const inWindow = candidates.find(
    (k) => (k.from === undefined || signedAt >= k.from) && (k.until === undefined || signedAt <= k.until),
  );
  if (inWindow === undefined) {
    const k = candidates[0]!.key;
    return {
      ok: false,
      reason: 'untrusted_key',
      message: `signing key ${k.key_id ?? ''} is trusted only from ${k.valid_from ?? '-'} until ${k.valid_until ?? '-'}, not at ${new Date(signedAt).toISOString()}`,
    };
  }
  const sig = decodeBase64Strict(signature.sig_b64);
  if (sig === undefined || sig.length !== ED25519_SIGNATURE_BYTES) {
    return {
      ok: false,
      reason: 'bad_signature',
      message: 'signature.sig_b64 is not a 64-byte Ed25519 signature',
    };
  }
  if (!backend.verify('ed25519', publicKey, message, sig)) {
    return { ok: false, reason: 'bad_signature', message: 'Ed25519 signature does not verify' };
  }
  return { ok: true, signer: inWindow.key };
}

/**
 * Signs a D20/D21 document: drops any old `signature`, signs the rest under the context, and checks
 * the signed document against its schema (`label` names it in the error), so nothing invalid is issued.
 */
export function signDocument<Signed>(
  document: object,
  secretKey: Uint8Array,
  options: SigningOptions,
  form: {
    readonly context: Extract<ContextName, 'Revocation' | 'JurisdictionAttestation'>;
    readonly schema: string;
    readonly label: string;
  },
): Result<Signed> {
  const { signature: _drop, ...unsigned } = document as Readonly<Record<string, unknown>>;
  const message = signedMessage(options.profile ?? DEFAULT_PROFILE, form.context, unsigned);
  if (!message.ok) return message;
  const signature = signEd25519(message.value, secretKey, backendOf(options));
  if (!signature.ok) return signature;
  const signed = { ...unsigned, signature: signature.value };
  const verdict = validateSchema('v2', form.schema, signed);
  if (!verdict.valid) {
    return err(coreError('ARTIFACT_SCHEMA_INVALID', `${form.label}: ${formatSchemaIssues(verdict.issues)}`));
  }
  return ok(signed as Signed);
}
