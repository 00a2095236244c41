// The witness's environment: its key name and key, the logs it witnesses, the store, validated at boot.
// c2sp.org/tlog-witness; issue 18 item 2; decisions P46 (cosignature/v1 keys), P49 (state in the store).
import { isValidKeyName } from '@proto/core';
import { ConfigError, defineEnv, loadConfig, type SharedConfig } from '@proto/service-kit';

export const DEFAULT_WITNESS_NAME = 'signed-bundles.local/witness';
/** Largest add-checkpoint body: 63 proof lines and a checkpoint with a few ML-DSA signatures fit many times. */
export const DEFAULT_WITNESS_BODY_LIMIT = 65_536;

export const WITNESS_ENV = defineEnv({
  PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3004, description: 'HTTP port' },
  WITNESS_NAME: {
    type: 'string',
    minLength: 1,
    default: DEFAULT_WITNESS_NAME,
    description: 'Key name of the witness (a URL-like name, no spaces, no "+"); part of its key ID',
  },
  WITNESS_KEY_FILE: {
    type: 'string',
    minLength: 1,
    description:
      'File holding the Ed25519 secret key (base64 of seed ‖ public key, or of the 32-byte seed); ' +
      'generated there (mode 0600) if missing. Default DATA_DIR/witness-ed25519.key',
  },
  WITNESS_LOGS: {
    type: 'string',
    description:
      'The logs witnessed, one per line or ";"-separated: "<origin> <vkey> [<vkey>…]", or vkeys alone ' +
      '(the origin is then their key name)',
  },
  WITNESS_LOGS_FILE: {
    type: 'string',
    minLength: 1,
    description: 'File in the WITNESS_LOGS format ("#" starts a comment); read once at start',
  },
  WITNESS_BODY_LIMIT: {
    type: 'integer',
    minimum: 1024,
    maximum: 1_048_576,
    default: DEFAULT_WITNESS_BODY_LIMIT,
    description: 'Largest POST /add-checkpoint body in bytes (413 beyond)',
  },
  ADD_RATE_LIMIT_PER_MINUTE: {
    type: 'integer',
    minimum: 0,
    default: 600,
    description: 'POST /add-checkpoint per minute per client IP; 0: no limit',
  },
  DATABASE_SCHEMA: {
    type: 'string',
    pattern: '^[a-z_][a-z0-9_]{0,62}$',
    description: 'PostgreSQL schema of the witness table (default: the server search_path)',
  },
  CRYPTO_BACKEND: {
    type: 'string',
    enum: ['auto', 'native', 'noble'],
    default: 'auto',
    description: 'Signature backend: node:crypto, @noble, or auto',
  },
});

export interface WitnessConfig extends SharedConfig {
  readonly WITNESS_NAME: string;
  readonly WITNESS_KEY_FILE?: string;
  readonly WITNESS_LOGS?: string;
  readonly WITNESS_LOGS_FILE?: string;
  readonly WITNESS_BODY_LIMIT: number;
  readonly ADD_RATE_LIMIT_PER_MINUTE: number;
  readonly DATABASE_SCHEMA?: string;
  readonly CRYPTO_BACKEND: 'auto' | 'native' | 'noble';
}

/** Validates the environment; throws ConfigError naming the variable at fault. */
export function loadWitnessConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): WitnessConfig {
  const config = loadConfig<WitnessConfig>(WITNESS_ENV, env);
  if (!isValidKeyName(config.WITNESS_NAME)) {
    throw new ConfigError(
      'WITNESS_NAME must not contain spaces, "+" or control characters (it is the key name)',
      ['WITNESS_NAME'],
    );
  }
  if (config.WITNESS_LOGS !== undefined && config.WITNESS_LOGS_FILE !== undefined) {
    throw new ConfigError('set WITNESS_LOGS or WITNESS_LOGS_FILE, not both', [
      'WITNESS_LOGS',
      'WITNESS_LOGS_FILE',
    ]);
  }
  return config;
}
