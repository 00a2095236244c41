// V1 check `classical_sig`: Ed25519 over the raw V1-canonical bundle bytes, no context (PROTOCOL §5.2),
// with D11's key rule. Errors KID_MISMATCH, SIGNATURE_MISSING, ALGORITHM_UNAVAILABLE, POLICY_VIOLATION,
// CLASSICAL_SIG_INVALID.
import type { CryptoBackend } from '../../../crypto/index.ts';
import { deriveKid } from '../../../crypto/kid.ts';
import { decodeBase64Strict } from '../../../encoding/index.ts';
import { describe, prop, propRecord, propString } from '../../json.ts';
import type { Ledger } from '../../ledger.ts';
import type { VerifierRuntime } from '../../settings.ts';
import type { ParsedV1 } from './parsed.ts';

const ED25519_PUBLIC_KEY = 32;
const ED25519_SIGNATURE = 64;

function safeVerify(backend: CryptoBackend, key: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean {
  try {
    return backend.verify('ed25519', key, msg, sig) === true;
  } catch {
    return false;
  }
}

/**
 * D11 key rule: the bundle's `signature.signer.public_key_b64`; the request's key only when the
 * bundle has none; both present and different is E303 (upstream lets the request key win).
 * Returns the kid (PROTOCOL §4.4, `ed25519`) of the key the signature was checked with, when it is a 32-byte
 * Ed25519 key: the signer a revocation list may name (P225), as a V2 bundle's signer kids are.
 */
export function checkClassicalSig(
  ledger: Ledger,
  runtime: VerifierRuntime,
  parsed: ParsedV1,
  requestKey: string | undefined,
): string | undefined {
  let signerKid: string | undefined;
  const { signature } = parsed;
  const bundleKey = propString(propRecord(signature, 'signer'), 'public_key_b64');
  const keyText = bundleKey ?? requestKey;
  if (bundleKey !== undefined && requestKey !== undefined && bundleKey !== requestKey) {
    ledger.fail(
      'classical_sig',
      'KID_MISMATCH',
      'public_key_b64 in the request differs from signature.signer.public_key_b64',
    );
  } else if (keyText === undefined) {
    ledger.fail(
      'classical_sig',
      'SIGNATURE_MISSING',
      'Missing public key (provide public_key_b64 or signature.signer.public_key_b64)',
    );
  } else if (prop(signature, 'alg') !== 'ed25519') {
    ledger.fail(
      'classical_sig',
      'ALGORITHM_UNAVAILABLE',
      `Unsupported V1 signature algorithm ${describe(prop(signature, 'alg'))}`,
    );
  } else if (
    !runtime.settings.policy.accepted_algorithms.signing.includes('ed25519') ||
    runtime.settings.advisoryRejectedAlgs.includes('ed25519')
  ) {
    ledger.fail(
      'classical_sig',
      'POLICY_VIOLATION',
      'Classical algorithm ed25519 not accepted by verifier policy',
    );
  } else {
    const key = decodeBase64Strict(keyText);
    if (key !== undefined && key.length === ED25519_PUBLIC_KEY) signerKid = deriveKid('ed25519', key);
    const sigText = prop(signature, 'sig_b64');
    const sig = typeof sigText === 'string' ? decodeBase64Strict(sigText) : undefined;
    if (key === undefined || key.length !== ED25519_PUBLIC_KEY) {
      ledger.fail(
        'classical_sig',
        'CLASSICAL_SIG_INVALID',
        'Signer public key is not strict base64 of a 32-byte Ed25519 key',
      );
    } else if (sig === undefined || sig.length !== ED25519_SIGNATURE) {
      ledger.fail(
        'classical_sig',
        'CLASSICAL_SIG_INVALID',
        'sig_b64 is not strict base64 of a 64-byte Ed25519 signature',
      );
    } else if (!runtime.backend.algorithms.includes('ed25519')) {
      ledger.fail(
        'classical_sig',
        'ALGORITHM_UNAVAILABLE',
        `ed25519 is not available in the ${runtime.backend.name} backend`,
      );
    } else if (!safeVerify(runtime.backend, key, parsed.bundleBytes, sig)) {
      ledger.fail(
        'classical_sig',
        'CLASSICAL_SIG_INVALID',
        'SIGNATURE INVALID: Ed25519 signature does not verify over the bundle',
      );
    }
  }
  ledger.settle('classical_sig');
  return signerKid;
}
