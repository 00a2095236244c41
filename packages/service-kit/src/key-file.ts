// Secret key files of the services (the log's checkpoint keys, the witness's cosigning key, the revocation
// service's signing keys): generated at first start with mode 0600, never overwritten, read back as base64.
// Ed25519 secrets use the SDK layout, seed ‖ public key; a 32-byte seed alone is accepted too.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { bytesEqual, decodeBase64Strict, ed25519Pkcs8FromSeed, encodeBase64 } from '@proto/core';
import { ConfigError } from './config.ts';

export interface KeyFileLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** The Ed25519 public key of a 32-byte seed. */
export function ed25519PublicFromSeed(seed: Uint8Array): Uint8Array {
  const privateKey = createPrivateKey({
    key: Buffer.from(ed25519Pkcs8FromSeed(seed)),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return new Uint8Array(Buffer.from(String(jwk.x), 'base64url'));
}

/**
 * seed ‖ public key (64 bytes) from base64 of the same or of a 32-byte seed. Anything else, or a public
 * half that is not the seed's, is a ConfigError naming `subject` (a variable or a file) and `variables`.
 */
export function parseEd25519SecretKey(
  text: string,
  subject: string,
  variables: readonly string[] = [subject],
): Uint8Array {
  const bytes = decodeBase64Strict(text.trim());
  if (bytes === undefined || (bytes.length !== 64 && bytes.length !== 32)) {
    throw new ConfigError(
      `${subject} must be standard base64 of an Ed25519 secret key (64 bytes seed ‖ public key, or a 32-byte seed)`,
      [...variables],
    );
  }
  const seed = bytes.subarray(0, 32);
  const publicKey = ed25519PublicFromSeed(seed);
  if (bytes.length === 64 && !bytesEqual(bytes.subarray(32), publicKey)) {
    throw new ConfigError(`${subject}: the public half does not belong to the seed`, [...variables]);
  }
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(publicKey, 32);
  return secretKey;
}

export interface KeyFileOptions {
  readonly filePath: string;
  /** A fresh secret key, written (base64) only when the file does not exist yet. */
  readonly generate: () => Uint8Array;
  /** What the key is, for log lines and errors: `witness key`, `checkpoint key`. */
  readonly what: string;
  /** The variable an operator changes when the file cannot be used (named by the ConfigError). */
  readonly variable: string;
  readonly log: KeyFileLog;
}

export interface KeyFileText {
  /** The file's content, to be parsed by the caller. */
  readonly text: string;
  readonly filePath: string;
  /** True when this call created the file. */
  readonly generated: boolean;
}

function tightenMode(filePath: string, what: string, log: KeyFileLog): void {
  if ((statSync(filePath).mode & 0o077) === 0) return;
  try {
    chmodSync(filePath, 0o600);
    log.warn({ path: filePath }, `${what} file was readable by others; mode reset to 0600`);
  } catch {
    // A read-only mount (a Kubernetes Secret with fsGroup reads 0440): its owner decides the mode.
    log.warn({ path: filePath }, `${what} file is readable by others and its mode cannot be changed`);
  }
}

/**
 * Reads the key file, creating it (and its folder) with a generated key when missing; a file readable by
 * others is reset to 0600. The secret is never logged. File-system failures become a ConfigError.
 */
export function readOrCreateKeyFile(options: KeyFileOptions): KeyFileText {
  const filePath = resolve(options.filePath);
  const unusable = (error: unknown, action: string) =>
    new ConfigError(
      `cannot ${action} the ${options.what} file ${filePath} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      [options.variable],
    );
  try {
    mkdirSync(dirname(filePath), { recursive: true });
  } catch (error) {
    throw unusable(error, 'create the folder of');
  }
  let generated = false;
  try {
    // 'wx': a key another replica or an earlier start wrote is never replaced.
    writeFileSync(filePath, `${encodeBase64(options.generate())}\n`, { mode: 0o600, flag: 'wx' });
    generated = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unusable(error, 'create');
  }
  try {
    tightenMode(filePath, options.what, options.log);
    return { text: readFileSync(filePath, 'utf8'), filePath, generated };
  } catch (error) {
    throw unusable(error, 'read');
  }
}
