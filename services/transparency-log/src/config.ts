// The transparency log's environment: origin, keys, batching, checkpoint and anchoring timers, validated at boot.
// SPEC.md "Transparency log service"; DECISIONS D18 (log, checkpoints, root anchoring), D22 (operator token).

import {
  DEFAULT_FINAL_CONFIRMATIONS_TEXT,
  type FinalConfirmations,
  isValidKeyName,
  parseFinalConfirmations,
} from '@proto/core';
import {
  ConfigError,
  defineEnv,
  loadConfig,
  OPERATOR_TOKEN_ENV,
  type SharedConfig,
} from '@proto/service-kit';
import { parseLogWitnesses, type WitnessEndpoint, witnessQuorum } from './witness-config.ts';

export const DEFAULT_LOG_ORIGIN = 'signed-bundles.local/log';

export const TRANSPARENCY_LOG_ENV = defineEnv({
  PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3002, description: 'HTTP port' },
  LOG_ORIGIN: {
    type: 'string',
    minLength: 1,
    default: DEFAULT_LOG_ORIGIN,
    description:
      'Checkpoint origin line and signing key name (no spaces, no "+"); fixed for the life of the log',
  },
  LOG_ED25519_KEY: {
    type: 'string',
    description:
      'Ed25519 secret key, base64 (64-byte seed ‖ public key, or 32-byte seed); generated if unset',
  },
  LOG_MLDSA_KEY: {
    type: 'string',
    description: 'ML-DSA-65 secret key, base64 of the 4032-byte FIPS 204 expanded key; generated if unset',
  },
  LOG_ACCEPT_NEW_KEYS: {
    type: 'boolean',
    default: false,
    description: 'Record these keys as the log keys although the database names others (key rotation)',
  },
  BATCH_MAX: {
    type: 'integer',
    minimum: 1,
    maximum: 8192,
    default: 256,
    description: 'Most appends per commit',
  },
  BATCH_WAIT_MS: {
    type: 'integer',
    minimum: 0,
    maximum: 10_000,
    default: 20,
    description: 'Longest an idle sequencer waits to fill a batch before committing',
  },
  // P545: every timer, timeout and queue here has an upper bound: a timer past 2^31 - 1 ms fires after 1 ms, a
  // queue without one can take all memory.
  MAX_PENDING: {
    type: 'integer',
    minimum: 1,
    maximum: 1_000_000,
    default: 10_000,
    description: 'Appends waiting for a batch before POST /add answers 503 (E702)',
  },
  CHECKPOINT_INTERVAL_MS: {
    type: 'integer',
    minimum: 10,
    maximum: 3_600_000,
    default: 1000,
    description: 'How often a new checkpoint is signed when the tree has grown',
  },
  ENTRIES_PAGE_MAX: {
    type: 'integer',
    minimum: 1,
    maximum: 10_000,
    default: 1000,
    description: 'Largest GET /entries page',
  },
  ADD_RATE_LIMIT_PER_MINUTE: {
    type: 'integer',
    minimum: 0,
    default: 0,
    description: 'POST /add per minute per client IP (the writers hold the operator token); 0: no limit',
  },
  DATABASE_SCHEMA: {
    type: 'string',
    pattern: '^[a-z_][a-z0-9_]{0,62}$',
    description: 'PostgreSQL schema of the log tables (default: the server search_path)',
  },
  ANCHOR_SERVICE_URL: {
    type: 'string',
    pattern: '^https?://',
    description: 'Anchor service that signed roots are sent to',
  },
  ANCHOR_TOKEN: { type: 'string', description: 'Bearer token for the anchor service (its OPERATOR_TOKEN)' },
  ANCHOR_CHAIN: {
    type: 'string',
    minLength: 1,
    description: 'chain sent with each anchor request (default: the service default)',
  },
  ROOT_ANCHOR_INTERVAL_MS: {
    type: 'integer',
    minimum: 100,
    maximum: 604_800_000,
    default: 3_600_000,
    description: 'How often the latest signed root is anchored when it has changed',
  },
  // P463: how deep a confirmed root anchor must be reported before the log stops following it (P462's table).
  ROOT_ANCHOR_FINAL_CONFIRMATIONS: {
    type: 'string',
    default: DEFAULT_FINAL_CONFIRMATIONS_TEXT,
    description:
      "Confirmations a confirmed root anchor's receipt must report before the log stops polling it, per chain: comma-separated <chain name or receipt kind (evm, bitcoin)>=<n>, optionally a bare <n> for the others (else 64), as ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS",
  },
  ANCHOR_TIMEOUT_MS: {
    type: 'integer',
    minimum: 100,
    maximum: 300_000,
    default: 10_000,
    description: 'Timeout of one anchor request',
  },
  LOG_WITNESSES: {
    type: 'string',
    // P610: a witness URL may carry `user:password@` (sent as Basic), so the logger scrubs the value as a secret.
    secret: true,
    description:
      'Witnesses each checkpoint is submitted to (c2sp.org/tlog-witness): comma-separated "<url> <vkey>", ' +
      'or JSON [{"url", "key"}]; a URL\'s user:password@ is sent as Basic authorization; unset: no witnesses',
  },
  LOG_WITNESS_QUORUM: {
    type: 'integer',
    minimum: 1,
    description:
      'Witness cosignatures a checkpoint needs before it is published (default: every configured witness)',
  },
  LOG_WITNESS_TIMEOUT_MS: {
    type: 'integer',
    minimum: 100,
    maximum: 300_000,
    default: 5000,
    description:
      'Timeout of one add-checkpoint request to a witness (a witness that does not answer is retried with backoff)',
  },
  LOG_WITNESS_RETRY_MAX_MS: {
    type: 'integer',
    minimum: 0,
    maximum: 86_400_000,
    default: 300_000,
    description:
      'Longest wait before asking a witness that is down again: the wait doubles from CHECKPOINT_INTERVAL_MS after each failed ask up to this (P391); 0: every round',
  },
  LOG_WITNESS_DOWN_LOG_INTERVAL_MS: {
    type: 'integer',
    minimum: 100,
    maximum: 86_400_000,
    default: 600_000,
    description:
      'While a witness stays down, one "witness is still down" warn line per this interval (P391); its going down and coming back are logged once; a repeated bad answer of one kind is also written once per this interval (P395)',
  },
  CRYPTO_BACKEND: {
    type: 'string',
    enum: ['auto', 'native', 'noble'],
    default: 'auto',
    description: 'Signature backend: node:crypto, @noble, or auto',
  },
  ...OPERATOR_TOKEN_ENV,
  OPERATOR_TOKEN_FILE: {
    type: 'string',
    minLength: 1,
    description:
      'Where the generated POST /add token is kept when OPERATOR_TOKEN is unset (default DATA_DIR/operator-token)',
  },
});

export interface TransparencyLogConfig extends SharedConfig {
  readonly LOG_ORIGIN: string;
  readonly LOG_ED25519_KEY?: string;
  readonly LOG_MLDSA_KEY?: string;
  readonly LOG_ACCEPT_NEW_KEYS: boolean;
  readonly BATCH_MAX: number;
  readonly BATCH_WAIT_MS: number;
  readonly MAX_PENDING: number;
  readonly CHECKPOINT_INTERVAL_MS: number;
  readonly ENTRIES_PAGE_MAX: number;
  readonly ADD_RATE_LIMIT_PER_MINUTE: number;
  readonly DATABASE_SCHEMA?: string;
  readonly ANCHOR_SERVICE_URL?: string;
  readonly ANCHOR_TOKEN?: string;
  readonly ANCHOR_CHAIN?: string;
  readonly ROOT_ANCHOR_INTERVAL_MS: number;
  /** Parsed ROOT_ANCHOR_FINAL_CONFIRMATIONS (P463). */
  readonly ROOT_ANCHOR_FINAL_CONFIRMATIONS: FinalConfirmations;
  readonly ANCHOR_TIMEOUT_MS: number;
  /** Parsed LOG_WITNESSES (empty: no witnesses). */
  readonly LOG_WITNESSES: readonly WitnessEndpoint[];
  /** Resolved LOG_WITNESS_QUORUM (0 when no witnesses are configured). */
  readonly LOG_WITNESS_QUORUM: number;
  readonly LOG_WITNESS_TIMEOUT_MS: number;
  readonly LOG_WITNESS_RETRY_MAX_MS: number;
  readonly LOG_WITNESS_DOWN_LOG_INTERVAL_MS: number;
  readonly CRYPTO_BACKEND: 'auto' | 'native' | 'noble';
  readonly OPERATOR_TOKEN?: string;
  readonly OPERATOR_TOKEN_FILE?: string;
}

/** Validates the environment; throws ConfigError naming the variable at fault. */
export function loadTransparencyLogConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): TransparencyLogConfig {
  type Parsed = 'LOG_WITNESSES' | 'LOG_WITNESS_QUORUM' | 'ROOT_ANCHOR_FINAL_CONFIRMATIONS';
  const raw = loadConfig<Omit<TransparencyLogConfig, Parsed>>(TRANSPARENCY_LOG_ENV, env) as Record<
    string,
    unknown
  > &
    Omit<TransparencyLogConfig, Parsed>;
  const witnesses = parseLogWitnesses(raw['LOG_WITNESSES'] as string | undefined);
  const config: TransparencyLogConfig = {
    ...raw,
    LOG_WITNESSES: witnesses,
    LOG_WITNESS_QUORUM: witnessQuorum(raw['LOG_WITNESS_QUORUM'] as number | undefined, witnesses),
    ROOT_ANCHOR_FINAL_CONFIRMATIONS: finalConfirmationsSetting(raw['ROOT_ANCHOR_FINAL_CONFIRMATIONS']),
  };
  if (!isValidKeyName(config.LOG_ORIGIN)) {
    throw new ConfigError(
      'LOG_ORIGIN must not contain spaces, "+" or control characters (it is the key name)',
      ['LOG_ORIGIN'],
    );
  }
  refuseAnchorUrlCredentials(config.ANCHOR_SERVICE_URL);
  return config;
}

/**
 * P196: such an ANCHOR_SERVICE_URL could never anchor a root; it is refused at boot. P610 keeps the refusal though
 * fetchBounded now sends userinfo as Basic: the anchor service takes only ANCHOR_TOKEN as a Bearer header, which wins
 * over the userinfo, so the password would be silently dropped. The message never repeats the URL.
 */
function refuseAnchorUrlCredentials(url: string | undefined): void {
  if (url === undefined) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('ANCHOR_SERVICE_URL is not a URL', ['ANCHOR_SERVICE_URL']);
  }
  if (parsed.username !== '' || parsed.password !== '' || /^[a-z]+:\/\/[^/?#]*@/i.test(url)) {
    throw new ConfigError(
      'ANCHOR_SERVICE_URL must not carry credentials ("user:password@"): the anchor service takes only its operator token; ' +
        "remove them and give the anchor service's operator token in ANCHOR_TOKEN",
      ['ANCHOR_SERVICE_URL'],
    );
  }
}

/** ROOT_ANCHOR_FINAL_CONFIRMATIONS read as core's per-chain table (P463). */
function finalConfirmationsSetting(value: unknown): FinalConfirmations {
  try {
    return parseFinalConfirmations(typeof value === 'string' ? value : DEFAULT_FINAL_CONFIRMATIONS_TEXT);
  } catch (error) {
    throw new ConfigError(`ROOT_ANCHOR_FINAL_CONFIRMATIONS ${(error as Error).message}`, [
      'ROOT_ANCHOR_FINAL_CONFIRMATIONS',
    ]);
  }
}
