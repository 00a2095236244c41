// The log's two checkpoint keys (Ed25519, ML-DSA-65): from configuration, or generated into DATA_DIR (0600) at
// first start; secrets are never logged, only the public verifier keys. DECISIONS D18; docs/architecture.md §6.
import { join } from 'node:path';
import {
  ALGORITHM_SIZES,
  type CryptoBackend,
  decodeBase64Strict,
  formatVerifierKey,
  type NoteSigner,
  type NoteVerifierKey,
  noteVerifierKey,
  publicKeyFromSecret,
  type SigningAlg,
  utf8Encode,
} from '@proto/core';
import { ConfigError, type KeyFileLog, parseEd25519SecretKey, readOrCreateKeyFile } from '@proto/service-kit';

export const KEY_FILES: Readonly<Record<SigningAlg, string>> = {
  ed25519: 'transparency-log-ed25519.key',
  'ml-dsa-65': 'transparency-log-ml-dsa-65.key',
};

const KEY_VARIABLES: Readonly<Record<SigningAlg, string>> = {
  ed25519: 'LOG_ED25519_KEY',
  'ml-dsa-65': 'LOG_MLDSA_KEY',
};

export interface LogSigningKey {
  readonly signer: NoteSigner;
  readonly verifier: NoteVerifierKey;
  /** C2SP verifier-key string: `<origin>+<key id>+<base64(type ‖ public key)>`. */
  readonly vkey: string;
  readonly source: 'env' | 'file';
  readonly filePath?: string;
}

export interface LogSigningKeys {
  /** Ed25519 first, then ML-DSA-65: the order of the checkpoint's signature lines. */
  readonly keys: readonly LogSigningKey[];
  readonly signers: readonly NoteSigner[];
  readonly verifiers: readonly NoteVerifierKey[];
  readonly vkeys: readonly string[];
}

export interface LoadSigningKeysOptions {
  readonly origin: string;
  readonly ed25519Key: string | undefined;
  readonly mlDsaKey: string | undefined;
  readonly dataDir: string;
  readonly backend: CryptoBackend;
  readonly log: KeyFileLog;
}

/** Secret key in the SDK layout from its base64 text; ConfigError naming `variable` otherwise. */
export function parseLogSecretKey(alg: SigningAlg, text: string, variable: string): Uint8Array {
  if (alg === 'ed25519') return parseEd25519SecretKey(text, variable);
  const bytes = decodeBase64Strict(text.trim());
  if (bytes === undefined || bytes.length !== ALGORITHM_SIZES['ml-dsa-65'].secretKey) {
    throw new ConfigError(`${variable} must be base64 of a 4032-byte ML-DSA-65 expanded secret key`, [
      variable,
    ]);
  }
  return bytes;
}

function buildKey(
  alg: SigningAlg,
  secretKey: Uint8Array,
  origin: string,
  backend: CryptoBackend,
  source: 'env' | 'file',
  variable: string,
  filePath?: string,
): LogSigningKey {
  let publicKey: Uint8Array;
  try {
    publicKey = publicKeyFromSecret(alg, secretKey);
  } catch (error) {
    throw new ConfigError(`${variable}: ${(error as Error).message}`, [variable]);
  }
  // A key the backend cannot sign with must stop the service now, not at the first checkpoint.
  const probe = utf8Encode(`${origin} key self-test\n`);
  let works = false;
  try {
    works = backend.verify(alg, publicKey, probe, backend.sign(alg, secretKey, probe));
  } catch {
    works = false;
  }
  if (!works)
    throw new ConfigError(`${variable}: the ${backend.name} backend cannot sign with this ${alg} key`, [
      variable,
    ]);
  const verifier = noteVerifierKey(origin, alg, publicKey);
  if (!verifier.ok) throw new ConfigError(`LOG_ORIGIN: ${verifier.error.message}`, ['LOG_ORIGIN']);
  return {
    signer: { name: origin, alg, secretKey, publicKey },
    verifier: verifier.value,
    vkey: formatVerifierKey(verifier.value),
    source,
    ...(filePath === undefined ? {} : { filePath }),
  };
}

/** Reads DATA_DIR/<file>, creating it (mode 0600, never overwriting) with a fresh key on first start. */
function keyFromFile(
  alg: SigningAlg,
  dataDir: string,
  backend: CryptoBackend,
  log: KeyFileLog,
): { secretKey: Uint8Array; filePath: string } {
  const file = readOrCreateKeyFile({
    filePath: join(dataDir, KEY_FILES[alg]),
    generate: () => backend.generateKeyPair(alg).secretKey,
    what: 'checkpoint key',
    variable: 'DATA_DIR',
    log,
  });
  if (file.generated) {
    log.info(
      { path: file.filePath, alg },
      'generated a checkpoint signing key (LOG_*_KEY unset); keep this file secret',
    );
  }
  const variable = `${KEY_FILES[alg]} in DATA_DIR`;
  return { secretKey: parseLogSecretKey(alg, file.text, variable), filePath: file.filePath };
}

/** Both checkpoint keys, checked by a signing round; the public verifier keys are logged at info. */
export function loadLogSigningKeys(options: LoadSigningKeysOptions): LogSigningKeys {
  const configured: Record<SigningAlg, string | undefined> = {
    ed25519: options.ed25519Key,
    'ml-dsa-65': options.mlDsaKey,
  };
  const keys = (['ed25519', 'ml-dsa-65'] as const).map((alg) => {
    const variable = KEY_VARIABLES[alg];
    const text = configured[alg];
    if (text !== undefined && text.trim() !== '') {
      return buildKey(
        alg,
        parseLogSecretKey(alg, text, variable),
        options.origin,
        options.backend,
        'env',
        variable,
      );
    }
    const { secretKey, filePath } = keyFromFile(alg, options.dataDir, options.backend, options.log);
    return buildKey(alg, secretKey, options.origin, options.backend, 'file', filePath, filePath);
  });
  for (const key of keys) {
    options.log.info(
      {
        alg: key.signer.alg,
        source: key.source,
        vkey: key.vkey.length > 120 ? `${key.vkey.slice(0, 120)}…` : key.vkey,
      },
      'checkpoint verifier key',
    );
  }
  return {
    keys,
    signers: keys.map((k) => k.signer),
    verifiers: keys.map((k) => k.verifier),
    vkeys: keys.map((k) => k.vkey),
  };
}
