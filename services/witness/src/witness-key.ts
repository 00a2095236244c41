// The witness's Ed25519 cosigning key: read from WITNESS_KEY_FILE (default DATA_DIR/witness-ed25519.key),
// generated there (mode 0600, never overwriting) at first start. Only the public vkey is ever logged.
// Issue 18 item 2; decision P46 (cosignature/v1, key type 0x04).
import { join } from 'node:path';
import { type Cosigner, type CryptoBackend, cosignerKey, formatCosignerKey } from '@proto/core';
import { ConfigError, type KeyFileLog, parseEd25519SecretKey, readOrCreateKeyFile } from '@proto/service-kit';

export const WITNESS_KEY_FILE = 'witness-ed25519.key';

export interface WitnessKey {
  readonly cosigner: Cosigner;
  /** `<name>+<key id>+<base64(0x04 ‖ public key)>`: what logs and verifiers configure. */
  readonly vkey: string;
  readonly filePath: string;
  readonly generated: boolean;
}

export interface LoadWitnessKeyOptions {
  readonly name: string;
  readonly keyFile: string | undefined;
  readonly dataDir: string;
  readonly backend: CryptoBackend;
  readonly log: KeyFileLog;
}

/** Reads the key file, creating it with a fresh key when missing; a readable-by-others file is reset to 0600. */
export function loadWitnessKey(options: LoadWitnessKeyOptions): WitnessKey {
  const file = readOrCreateKeyFile({
    filePath: options.keyFile ?? join(options.dataDir, WITNESS_KEY_FILE),
    generate: () => options.backend.generateKeyPair('ed25519').secretKey,
    what: 'witness key',
    variable: 'WITNESS_KEY_FILE',
    log: options.log,
  });
  if (file.generated)
    options.log.info({ path: file.filePath }, 'generated the witness cosigning key; keep this file secret');
  const secretKey = parseEd25519SecretKey(file.text, file.filePath, ['WITNESS_KEY_FILE']);
  const publicKey = secretKey.slice(32);
  const key = cosignerKey(options.name, publicKey);
  if (!key.ok) throw new ConfigError(`WITNESS_NAME: ${key.error.message}`, ['WITNESS_NAME']);
  const vkey = formatCosignerKey(key.value);
  options.log.info({ vkey }, 'witness verifier key');
  return { cosigner: { ...key.value, secretKey }, vkey, filePath: file.filePath, generated: file.generated };
}
