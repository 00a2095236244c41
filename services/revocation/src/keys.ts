// Ed25519 signing keys of the list and of attestations: from configuration, or generated into DATA_DIR
// (mode 0600) at first start. The secret is never logged. DECISIONS D20, D21; docs/architecture.md §6 (env config).
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bytesEqual, decodeBase64Strict, deriveKid, encodeBase64 } from '@proto/core';
import { ConfigError } from '@proto/service-kit';

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

interface KeyLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function publicFromSeed(seed: Uint8Array): Uint8Array {
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return new Uint8Array(Buffer.from(String(jwk.x), 'base64url'));
}

/** Accepts base64 of a 64-byte SDK secret key (seed ‖ public key, as `proto keygen` prints) or a 32-byte seed. */
export function parseSecretKey(text: string, variable: string): Uint8Array {
  const bytes = decodeBase64Strict(text.trim());
  if (bytes === undefined || (bytes.length !== 64 && bytes.length !== 32)) {
    throw new ConfigError(
      `${variable} must be standard base64 of an Ed25519 secret key (64 bytes seed ‖ public key, or a 32-byte seed)`,
      [variable],
    );
  }
  const seed = bytes.subarray(0, 32);
  const publicKey = publicFromSeed(seed);
  if (bytes.length === 64 && !bytesEqual(bytes.subarray(32), publicKey)) {
    throw new ConfigError(`${variable}: the public half does not belong to the seed`, [variable]);
  }
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(publicKey, 32);
  return secretKey;
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
  readonly log: KeyLog;
}

/**
 * The configured key, else the one stored under DATA_DIR, generated on first start with mode 0600
 * ('wx': an existing file is never overwritten). Logs the file path and public key, never the secret.
 */
export function loadSigningKey(options: LoadKeyOptions): SigningKey {
  if (options.value !== undefined && options.value.trim() !== '') {
    return toSigningKey(parseSecretKey(options.value, options.variable), 'env');
  }
  const dir = resolve(options.dataDir);
  const filePath = join(dir, options.fileName);
  mkdirSync(dir, { recursive: true });
  let generated = false;
  try {
    const pair = generateKeyPairSync('ed25519');
    const d = Buffer.from(String(pair.privateKey.export({ format: 'jwk' }).d), 'base64url');
    const x = Buffer.from(String(pair.publicKey.export({ format: 'jwk' }).x), 'base64url');
    writeFileSync(filePath, `${encodeBase64(new Uint8Array(Buffer.concat([d, x])))}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
    generated = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if ((statSync(filePath).mode & 0o077) !== 0) {
      chmodSync(filePath, 0o600);
      options.log.warn({ path: filePath }, 'signing key file was readable by others; mode reset to 0600');
    }
  }
  const key = toSigningKey(parseSecretKey(readFileSync(filePath, 'utf8'), filePath), 'file', filePath);
  options.log.info(
    { path: filePath, key_id: key.keyId, public_key_b64: key.publicKeyB64 },
    generated
      ? `generated a signing key (${options.variable} unset); keep this file secret and back it up`
      : `using the signing key stored in this file (${options.variable} unset)`,
  );
  return key;
}
