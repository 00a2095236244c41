// The witness's Ed25519 cosigning key: read from WITNESS_KEY_FILE (default DATA_DIR/witness-ed25519.key),
// generated there (mode 0600, never overwriting) at first start. Only the public vkey is ever logged.
// Issue 18 item 2; decision P46 (cosignature/v1, key type 0x04).
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  bytesEqual,
  type Cosigner,
  type CryptoBackend,
  cosignerKey,
  decodeBase64Strict,
  encodeBase64,
  formatCosignerKey,
} from '@proto/core';
import { ConfigError } from '@proto/service-kit';

export const WITNESS_KEY_FILE = 'witness-ed25519.key';

export interface WitnessKey {
  readonly cosigner: Cosigner;
  /** `<name>+<key id>+<base64(0x04 ‖ public key)>`: what logs and verifiers configure. */
  readonly vkey: string;
  readonly filePath: string;
  readonly generated: boolean;
}

interface KeyLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface LoadWitnessKeyOptions {
  readonly name: string;
  readonly keyFile: string | undefined;
  readonly dataDir: string;
  readonly backend: CryptoBackend;
  readonly log: KeyLog;
}

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function publicFromSeed(seed: Uint8Array): Uint8Array {
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  return new Uint8Array(Buffer.from(String(createPublicKey(key).export({ format: 'jwk' }).x), 'base64url'));
}

/** seed ‖ public key from the file's base64 (64 bytes, or a 32-byte seed); ConfigError otherwise. */
function parseSecret(text: string, filePath: string): Uint8Array {
  const bytes = decodeBase64Strict(text.trim());
  if (bytes === undefined || (bytes.length !== 64 && bytes.length !== 32)) {
    throw new ConfigError(
      `${filePath} must hold base64 of an Ed25519 secret key (64 bytes seed ‖ public key, or a 32-byte seed)`,
      ['WITNESS_KEY_FILE'],
    );
  }
  const seed = bytes.subarray(0, 32);
  const publicKey = publicFromSeed(seed);
  if (bytes.length === 64 && !bytesEqual(bytes.subarray(32), publicKey))
    throw new ConfigError(`${filePath}: the public half does not belong to the seed`, ['WITNESS_KEY_FILE']);
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(publicKey, 32);
  return secretKey;
}

function tightenMode(filePath: string, log: KeyLog): void {
  if ((statSync(filePath).mode & 0o077) === 0) return;
  try {
    chmodSync(filePath, 0o600);
    log.warn({ path: filePath }, 'witness key file was readable by others; mode reset to 0600');
  } catch {
    // A read-only mount (a Kubernetes Secret with fsGroup reads 0440): its owner decides the mode.
    log.warn({ path: filePath }, 'witness key file is readable by others and its mode cannot be changed');
  }
}

/** Reads the key file, creating it with a fresh key when missing; a readable-by-others file is reset to 0600. */
export function loadWitnessKey(options: LoadWitnessKeyOptions): WitnessKey {
  const filePath = resolve(options.keyFile ?? join(options.dataDir, WITNESS_KEY_FILE));
  const unusable = (error: unknown, what: string) =>
    new ConfigError(
      `cannot ${what} the witness key file ${filePath} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      ['WITNESS_KEY_FILE'],
    );
  try {
    mkdirSync(dirname(filePath), { recursive: true });
  } catch (error) {
    throw unusable(error, 'create the folder of');
  }
  let generated = false;
  try {
    const pair = options.backend.generateKeyPair('ed25519');
    // 'wx': a key another replica or an earlier start wrote is never replaced.
    writeFileSync(filePath, `${encodeBase64(pair.secretKey)}\n`, { mode: 0o600, flag: 'wx' });
    generated = true;
    options.log.info({ path: filePath }, 'generated the witness cosigning key; keep this file secret');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unusable(error, 'create');
  }
  let text: string;
  try {
    tightenMode(filePath, options.log);
    text = readFileSync(filePath, 'utf8');
  } catch (error) {
    throw unusable(error, 'read');
  }
  const secretKey = parseSecret(text, filePath);
  const publicKey = secretKey.slice(32);
  const key = cosignerKey(options.name, publicKey);
  if (!key.ok) throw new ConfigError(`WITNESS_NAME: ${key.error.message}`, ['WITNESS_NAME']);
  const vkey = formatCosignerKey(key.value);
  options.log.info({ vkey }, 'witness verifier key');
  return { cosigner: { ...key.value, secretKey }, vkey, filePath, generated };
}
