// Ed25519 signing keys of the list and of attestations: from configuration, or generated into DATA_DIR
// (mode 0600) at first start. The secret is never logged. DECISIONS D20, D21; docs/architecture.md §6 (env config).
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { deriveKid, encodeBase64 } from '@proto/core';
import { type KeyFileLog, parseEd25519SecretKey, readOrCreateKeyFile } from '@proto/service-kit';

export interface SigningKey {
  /** SDK layout: seed ‖ public key (64 bytes). */
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly publicKeyB64: string;
  /** deriveKid('ed25519', public key): 32 lowercase hex. */
  readonly keyId: string;
  readonly source: 'env' | 'file';
  readonly filePath?: string;
}

/** Accepts base64 of a 64-byte SDK secret key (seed ‖ public key, as `proto keygen` prints) or a 32-byte seed. */
export function parseSecretKey(text: string, variable: string): Uint8Array {
  return parseEd25519SecretKey(text, variable);
}

/** A fresh key in the SDK layout (seed ‖ public key), from node:crypto's JWK export. */
function generateSecretKey(): Uint8Array {
  const pair = generateKeyPairSync('ed25519');
  const d = Buffer.from(String(pair.privateKey.export({ format: 'jwk' }).d), 'base64url');
  const x = Buffer.from(String(pair.publicKey.export({ format: 'jwk' }).x), 'base64url');
  return new Uint8Array(Buffer.concat([d, x]));
}

function toSigningKey(secretKey: Uint8Array, source: 'env' | 'file', filePath?: string): SigningKey {
  const publicKey = secretKey.slice(32, 64);
  return {
    secretKey,
    publicKey,
    publicKeyB64: encodeBase64(publicKey),
    keyId: deriveKid('ed25519', publicKey),
    source,
    ...(filePath === undefined ? {} : { filePath }),
  };
}

export interface LoadKeyOptions {
  /** The configured value (REVOCATION_SIGNING_KEY / ATTESTATION_SIGNING_KEY). */
  readonly value: string | undefined;
  readonly variable: string;
  readonly dataDir: string;
  /** File under DATA_DIR used when `value` is unset. */
  readonly fileName: string;
  readonly log: KeyFileLog;
}

/**
 * The configured key, else the one stored under DATA_DIR, generated on first start with mode 0600
 * ('wx': an existing file is never overwritten). Logs the file path and public key, never the secret.
 */
export function loadSigningKey(options: LoadKeyOptions): SigningKey {
  if (options.value !== undefined && options.value.trim() !== '') {
    return toSigningKey(parseSecretKey(options.value, options.variable), 'env');
  }
  const file = readOrCreateKeyFile({
    filePath: join(options.dataDir, options.fileName),
    generate: generateSecretKey,
    what: 'signing key',
    variable: options.variable,
    log: options.log,
  });
  const { filePath, generated } = file;
  const key = toSigningKey(parseSecretKey(file.text, filePath), 'file', filePath);
  options.log.info(
    { path: filePath, key_id: key.keyId, public_key_b64: key.publicKeyB64 },
    generated
      ? `generated a signing key (${options.variable} unset); keep this file secret and back it up`
      : `using the signing key stored in this file (${options.variable} unset)`,
  );
  return key;
}
