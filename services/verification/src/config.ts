// The verification service's environment: every variable validated at boot, with its default.
// SPEC.md "Configuration of the verification service", DECISIONS D10 (VERIFIER_MODE is a floor), D17, D22.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { ConfigError, defineEnv, loadConfig, type SharedConfig } from '@proto/service-kit';

export const VERIFICATION_ENV = defineEnv({
  PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000, description: 'HTTP port' },
  DCP_VERSION: { type: 'string', enum: ['2.0'], default: '2.0', description: 'Protocol version served' },
  VERIFIER_MODE: {
    type: 'string',
    enum: ['classical_only', 'hybrid_preferred', 'hybrid_required', 'pq_only'],
    default: 'hybrid_preferred',
    description: "The operator's floor: the resolved tier never goes below the tier this mode implies (D10)",
  },
  REQUIRE_SESSION_BINDING: {
    type: 'boolean',
    default: true,
    description: 'All artifacts must share the session nonce',
  },
  REQUIRE_COMPOSITE_BINDING: {
    type: 'boolean',
    default: true,
    description: 'hybrid_required demands binding pq_over_classical',
  },
  MAX_KEY_AGE_DAYS: {
    type: 'integer',
    minimum: 1,
    default: 365,
    description: 'Signing keys older than this fail',
  },
  ALLOW_V1_BUNDLES: { type: 'boolean', default: true, description: 'Accept V1 bundles (D11)' },
  PQ_CHECKPOINT_INTERVAL: {
    type: 'integer',
    minimum: 1,
    description: 'Most audit events one PQ checkpoint may cover (default: the tier rule, 1 at maximum)',
  },
  VERIFIER_POLICY: {
    type: 'string',
    description: "VerifierPolicy (SPEC.md's shape) as JSON text or a file path",
  },
  VERIFICATION_CACHE_MAX_ENTRIES: {
    type: 'integer',
    minimum: 0,
    default: 10000,
    description: 'Cached analyses (LRU, TTL by tier); 0 turns the cache off',
  },
  VERIFY_WORKERS: {
    type: 'integer',
    minimum: 1,
    maximum: 256,
    description: 'Verification threads (default: cores)',
  },
  VERIFY_QUEUE_MAX: {
    type: 'integer',
    minimum: 1,
    description: 'Verifications waiting for a thread before 503 (default: 32 per thread)',
  },
  VERIFY_RATE_LIMIT_PER_MINUTE: {
    type: 'integer',
    minimum: 0,
    default: 600,
    description: 'POST /verify requests per minute per client IP, shared through Redis (0: no limit; D22)',
  },
  ANCHOR_SERVICE_URL: {
    type: 'string',
    pattern: '^https?://',
    description: 'Anchor service that POST /anchor forwards to',
  },
  CRYPTO_BACKEND: {
    type: 'string',
    enum: ['auto', 'native', 'noble'],
    default: 'auto',
    description: 'Signature backend: node:crypto, @noble, or auto (native when it has every algorithm)',
  },
});

export type VerifierModeName = 'classical_only' | 'hybrid_preferred' | 'hybrid_required' | 'pq_only';

export interface VerificationConfig extends SharedConfig {
  readonly DCP_VERSION: '2.0';
  readonly VERIFIER_MODE: VerifierModeName;
  readonly REQUIRE_SESSION_BINDING: boolean;
  readonly REQUIRE_COMPOSITE_BINDING: boolean;
  readonly MAX_KEY_AGE_DAYS: number;
  readonly ALLOW_V1_BUNDLES: boolean;
  readonly PQ_CHECKPOINT_INTERVAL?: number;
  /** Parsed VERIFIER_POLICY (validated by the verifier when it is built). */
  readonly VERIFIER_POLICY?: unknown;
  readonly VERIFICATION_CACHE_MAX_ENTRIES: number;
  readonly VERIFY_WORKERS: number;
  readonly VERIFY_QUEUE_MAX: number;
  readonly VERIFY_RATE_LIMIT_PER_MINUTE: number;
  readonly ANCHOR_SERVICE_URL?: string;
  readonly CRYPTO_BACKEND: 'auto' | 'native' | 'noble';
}

/** VERIFIER_POLICY holds JSON text (starts with `{`) or the path of a JSON file. */
function readPolicy(value: string): unknown {
  const text = value.trim();
  let source = text;
  if (!text.startsWith('{')) {
    try {
      source = readFileSync(text, 'utf8');
    } catch (error) {
      throw new ConfigError(
        `VERIFIER_POLICY is neither JSON nor a readable file (${(error as Error).message})`,
        ['VERIFIER_POLICY'],
      );
    }
  }
  try {
    return JSON.parse(source);
  } catch (error) {
    throw new ConfigError(`VERIFIER_POLICY is not valid JSON: ${(error as Error).message}`, [
      'VERIFIER_POLICY',
    ]);
  }
}

/** Validates the environment; throws ConfigError naming the variable at fault. */
export function loadVerificationConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): VerificationConfig {
  const raw = loadConfig<Record<string, unknown> & SharedConfig>(VERIFICATION_ENV, env);
  const workers = (raw['VERIFY_WORKERS'] as number | undefined) ?? Math.max(1, availableParallelism());
  const policy = typeof raw['VERIFIER_POLICY'] === 'string' ? readPolicy(raw['VERIFIER_POLICY']) : undefined;
  return {
    ...raw,
    VERIFY_WORKERS: workers,
    VERIFY_QUEUE_MAX: (raw['VERIFY_QUEUE_MAX'] as number | undefined) ?? workers * 32,
    ...(policy === undefined ? {} : { VERIFIER_POLICY: policy }),
  } as VerificationConfig;
}
