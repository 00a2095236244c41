// The verification service's environment: every variable validated at boot, with its default.
// SPEC.md "Configuration of the verification service", DECISIONS D10 (VERIFIER_MODE is a floor), D17,
// D19 (the operator's anchor sources), D20/D21 (revocation sources, attestation keys), D22.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import {
  DEFAULT_FINAL_CONFIRMATIONS_TEXT,
  type FinalConfirmations,
  parseFinalConfirmations,
  type TrustedKey,
} from '@proto/core';
import {
  ConfigError,
  defineEnv,
  type LogSource,
  loadConfig,
  parseAttestationTrustedKeys,
  parseJsonVariable,
  parseRevocationSources,
  parseUnlistedJurisdictions,
  REVOCATION_CLIENT_ENV,
  type RevocationSources,
  type SharedConfig,
} from '@proto/service-kit';
import { httpUrlNotShown, logBaseUrl, readLogSources } from './anchor-log-config.ts';
import { RECORD_SETTINGS_ENV } from './records/env.ts';

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
  ALLOW_V1_BUNDLES: {
    type: 'boolean',
    description:
      'Accept V1 bundles (D11). Default: true below hybrid_required, false at it; pq_only never accepts V1',
  },
  PQ_CHECKPOINT_INTERVAL: {
    type: 'integer',
    minimum: 1,
    description: 'Most audit events one PQ checkpoint may cover (default: the tier rule, 1 at maximum)',
  },
  VERIFIER_POLICY: {
    type: 'string',
    description: "VerifierPolicy (SPEC.md's shape) as JSON text or a file path",
  },
  // P545: caches, the queue, size caps and timers have upper bounds: a timer past 2^31 - 1 ms fires after 1 ms, and a
  // cap set in the wrong unit lets one process take all memory before it holds.
  VERIFICATION_CACHE_MAX_ENTRIES: {
    type: 'integer',
    minimum: 0,
    maximum: 1_000_000,
    default: 10000,
    description: 'Cached analyses (LRU, TTL by tier); 0 turns the cache off',
  },
  VERIFICATION_CACHE_MAX_BYTES: {
    type: 'integer',
    minimum: 1024,
    maximum: 1_073_741_824,
    default: 33554432,
    description: 'Bytes of cached analyses (their JSON length; LRU beyond; P73)',
  },
  VERIFY_WORKERS: {
    type: 'integer',
    minimum: 1,
    maximum: 256,
    description: 'Most verification threads (default: cores); started on demand (P71)',
  },
  VERIFY_WORKERS_MIN: {
    type: 'integer',
    minimum: 0,
    maximum: 256,
    default: 0,
    description: 'Verification threads kept alive while idle (at most VERIFY_WORKERS; P71)',
  },
  VERIFY_WORKER_IDLE_MS: {
    type: 'integer',
    minimum: 100,
    maximum: 3_600_000,
    default: 30000,
    description: 'A thread above VERIFY_WORKERS_MIN idle this long is stopped (P71)',
  },
  VERIFY_THREAD_HEAP_MB: {
    type: 'integer',
    minimum: 16,
    maximum: 16_384,
    default: 128,
    description:
      'Old-generation heap cap of each verification thread in MB: a thread past it is ended alone and its request answered 500 E900 (P612)',
  },
  VERIFY_QUEUE_MAX: {
    type: 'integer',
    minimum: 1,
    maximum: 65_536,
    description: 'Verifications waiting for a thread before 503 (default: 32 per thread)',
  },
  VERIFY_RATE_LIMIT_PER_MINUTE: {
    type: 'integer',
    minimum: 0,
    default: 600,
    description: 'POST /verify requests per minute per client IP, shared through Redis (0: no limit; D22)',
  },
  VERIFY_BATCH_MAX_ITEMS: {
    type: 'integer',
    minimum: 1,
    maximum: 100000,
    default: 1000,
    description: 'Bundles in one POST /verify/batch request; more is 413 (issue 14)',
  },
  VERIFY_BATCH_MAX_BYTES: {
    type: 'integer',
    minimum: 1024,
    maximum: 268_435_456,
    default: 8388608,
    description: 'Body size of one POST /verify/batch request in bytes; more is 413 (issue 14)',
  },
  VERIFY_BATCH_GROUP: {
    type: 'integer',
    minimum: 1,
    maximum: 64,
    default: 8,
    description:
      'Bundles of a POST /verify/batch per verification-pool task, at most (P109); 1 sends each alone',
  },
  ANCHOR_SERVICE_URL: {
    type: 'string',
    pattern: '^https?://',
    description: 'Anchor service that POST /anchor forwards to',
  },
  ANCHOR_FORWARD_TIMEOUT_MS: {
    type: 'integer',
    minimum: 1000,
    maximum: 300_000,
    default: 15_000,
    description:
      "Longest wait for the anchor service's whole answer to a forwarded POST /anchor; slower is 504 (P168)",
  },
  CRYPTO_BACKEND: {
    type: 'string',
    enum: ['auto', 'native', 'noble'],
    default: 'auto',
    description: 'Signature backend: node:crypto, @noble, or auto (native when it has every algorithm)',
  },
  // D20/D21: REVOCATION_SOURCES, ATTESTATION_TRUSTED_KEYS, REVOCATION_FETCH_TIMEOUT_MS.
  ...REVOCATION_CLIENT_ENV,
  // D17: the /v2 records' retention and rate limit (STORE_MAX_ENTRIES, V2_RATE_LIMIT_PER_MINUTE).
  ...RECORD_SETTINGS_ENV,
  // D19: where anchor receipts are checked. Only these operator-chosen sources are ever called.
  ANCHOR_VERIFY_ETH_RPC_URL: {
    type: 'string',
    description: 'EVM JSON-RPC URL for every EVM chain, or JSON {"<chain>": "<url>"}',
  },
  ANCHOR_VERIFY_ESPLORA_URL: {
    type: 'string',
    description: 'Esplora API base URL for every Bitcoin network, or JSON {"<network>": "<url>"}',
  },
  ANCHOR_VERIFY_LOG_URL: {
    type: 'string',
    description:
      'Transparency logs a receipt may name: comma-separated base URLs, or JSON [{"url", "keys"?, "witnesses"?, "quorum"?}]',
  },
  ANCHOR_VERIFY_LOG_KEY: {
    type: 'string',
    description:
      "Comma-separated C2SP verifier keys of the logs' signed checkpoints (<origin>+<id>+<base64>)",
  },
  // P60: a log's checkpoint counts only with k cosignatures of these witnesses (c2sp.org/tlog-cosignature).
  ANCHOR_VERIFY_WITNESS_KEYS: {
    type: 'string',
    description:
      'Comma-separated witness vkeys (cosignature/v1 Ed25519, <name>+<id>+<base64>) whose cosignatures a log checkpoint needs',
  },
  ANCHOR_VERIFY_WITNESS_QUORUM: {
    type: 'integer',
    minimum: 1,
    description:
      'How many distinct witnesses must have cosigned a log checkpoint (1..n; default: all of them)',
  },
  ANCHOR_VERIFY_MIN_CONFIRMATIONS: {
    type: 'integer',
    minimum: 1,
    default: 1,
    description: 'Confirmations an EVM or Bitcoin anchor needs for the anchor check to pass',
  },
  ANCHOR_VERIFY_TIMEOUT_MS: {
    type: 'integer',
    minimum: 100,
    maximum: 300_000,
    default: 5000,
    description: 'Timeout of one request to an anchor source, its whole answer included',
  },
  // P154: an anchor source's answer is read up to this size, never buffered whole on its word.
  ANCHOR_VERIFY_MAX_RESPONSE_BYTES: {
    type: 'integer',
    minimum: 1024,
    maximum: 268_435_456,
    default: 16777216,
    description:
      'Largest answer read from an anchor source (chain RPC, explorer, log); a longer one is unavailable',
  },
  // Issue 12 item 6: a receipt costs the anchor sources one look-up per TTL, however often it is sent.
  ANCHOR_VERIFY_CACHE_MAX_ENTRIES: {
    type: 'integer',
    minimum: 0,
    maximum: 1_000_000,
    default: 10000,
    description: 'Anchor checks remembered per receipt and bundle hash (LRU); 0 remembers none',
  },
  ANCHOR_VERIFY_CACHE_TTL_MS: {
    type: 'integer',
    minimum: 1000,
    maximum: 604_800_000,
    default: 600000,
    description:
      'How long a final anchor answer (pass, or a fail or skip that retrying cannot change) is kept',
  },
  ANCHOR_VERIFY_CACHE_RETRY_TTL_MS: {
    type: 'integer',
    minimum: 0,
    maximum: 3_600_000,
    default: 30000,
    description:
      'How long a retryable anchor answer (source unreachable, not confirmed yet) is kept; 0: never',
  },
  ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS: {
    type: 'string',
    default: DEFAULT_FINAL_CONFIRMATIONS_TEXT,
    description:
      'Confirmations a chain anchor pass needs to be kept for ANCHOR_VERIFY_CACHE_TTL_MS, per chain: comma-separated <chain name or receipt kind (evm, bitcoin)>=<n>, and optionally a bare <n> for every other chain (else 64); a bare number alone applies to every chain. A shallower pass, which a reorganisation may still undo, is kept for ANCHOR_VERIFY_CACHE_RETRY_TTL_MS (P393, P462)',
  },
  // Issue 12 item 7: an attestation with `expires_at: null` still ages out.
  ATTESTATION_MAX_AGE_DAYS: {
    type: 'integer',
    minimum: 1,
    default: 30,
    description: 'Oldest attested_at accepted for an attestation without expires_at',
  },
  // Issue 17: the log the console's verify page checks a bundle's inclusion in, from the browser.
  CONSOLE_LOG_URL: {
    type: 'string',
    description:
      "Transparency log the console at / checks inclusion in (browser-side); default: ANCHOR_VERIFY_LOG_URL's first log",
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
  readonly VERIFICATION_CACHE_MAX_BYTES: number;
  readonly VERIFY_WORKERS: number;
  readonly VERIFY_WORKERS_MIN: number;
  readonly VERIFY_WORKER_IDLE_MS: number;
  readonly VERIFY_THREAD_HEAP_MB: number;
  readonly VERIFY_QUEUE_MAX: number;
  readonly VERIFY_RATE_LIMIT_PER_MINUTE: number;
  readonly VERIFY_BATCH_MAX_ITEMS: number;
  readonly VERIFY_BATCH_MAX_BYTES: number;
  readonly VERIFY_BATCH_GROUP: number;
  readonly ANCHOR_SERVICE_URL?: string;
  readonly ANCHOR_FORWARD_TIMEOUT_MS: number;
  readonly CRYPTO_BACKEND: 'auto' | 'native' | 'noble';
  /** Parsed REVOCATION_SOURCES: jurisdiction → list URL and trusted list keys ({} when unset). */
  readonly REVOCATION_SOURCES: RevocationSources;
  /** Parsed ATTESTATION_TRUSTED_KEYS: jurisdiction → trusted attestation issuer keys ({} when unset). */
  readonly ATTESTATION_TRUSTED_KEYS: Readonly<Record<string, readonly TrustedKey[]>>;
  readonly REVOCATION_FETCH_TIMEOUT_MS: number;
  /** Parsed REVOCATION_UNLISTED_JURISDICTIONS: upper-case ISO 3166 codes ([] when unset; issue 12). */
  readonly REVOCATION_UNLISTED_JURISDICTIONS: readonly string[];
  /** http: revocation sources on non-loopback hosts are refused at boot unless true (issue 12). */
  readonly REVOCATION_ALLOW_INSECURE_HTTP: boolean;
  /** Parsed ANCHOR_VERIFY_ETH_RPC_URL: one URL, or one per chain name. */
  readonly ANCHOR_VERIFY_ETH_RPC_URL?: string | Readonly<Record<string, string>>;
  /** Parsed ANCHOR_VERIFY_ESPLORA_URL: one URL, or one per network. */
  readonly ANCHOR_VERIFY_ESPLORA_URL?: string | Readonly<Record<string, string>>;
  /** Parsed ANCHOR_VERIFY_LOG_URL, each log with its verifier keys (ANCHOR_VERIFY_LOG_KEY applied). */
  readonly ANCHOR_VERIFY_LOG_URL?: readonly LogSource[];
  /** As given; already applied to the logs of ANCHOR_VERIFY_LOG_URL. */
  readonly ANCHOR_VERIFY_LOG_KEY?: string;
  /** As given; already applied (with the quorum) to the logs of ANCHOR_VERIFY_LOG_URL. */
  readonly ANCHOR_VERIFY_WITNESS_KEYS?: string;
  readonly ANCHOR_VERIFY_WITNESS_QUORUM?: number;
  /** Base URL of the log the console page checks inclusion in (CONSOLE_LOG_URL, else the first anchor log). */
  readonly CONSOLE_LOG_URL?: string;
  readonly ANCHOR_VERIFY_MIN_CONFIRMATIONS: number;
  readonly ANCHOR_VERIFY_TIMEOUT_MS: number;
  readonly ANCHOR_VERIFY_MAX_RESPONSE_BYTES: number;
  readonly ANCHOR_VERIFY_CACHE_MAX_ENTRIES: number;
  readonly ANCHOR_VERIFY_CACHE_TTL_MS: number;
  readonly ANCHOR_VERIFY_CACHE_RETRY_TTL_MS: number;
  /** Parsed ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS: per chain name or receipt kind, and for the others (P462). */
  readonly ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS: FinalConfirmations;
  readonly ATTESTATION_MAX_AGE_DAYS: number;
  readonly STORE_MAX_ENTRIES: number;
  readonly RECORDS_WRITE_POLICY: 'signed' | 'open';
  readonly OPERATOR_TOKEN?: string;
  readonly DATABASE_SCHEMA?: string;
  readonly V2_RATE_LIMIT_PER_MINUTE: number;
  readonly KEY_DIRECTORY_PRUNE_AFTER_SECONDS: number;
  readonly KEY_DIRECTORY_PRUNE_INTERVAL_SECONDS: number;
}

/** VERIFIER_POLICY holds JSON text (starts with `{`) or the path of a JSON file, read strictly (P495). */
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
  // P495: as strictly as `proto verify --policy` reads the same file (a member twice is refused, not last-wins), so
  // one policy file is one policy to the CLI and the service.
  return parseJsonVariable(source, 'VERIFIER_POLICY');
}

/**
 * An anchor source URL (P529, P610). Userinfo is taken: fetchBounded sends it as Basic authorization to that origin
 * alone (P580), the URL is published nowhere (not in /health, /console/config.json or the capabilities document),
 * a failed request's message names only its origin (@proto/clients' `request`), and the logger scrubs the value.
 */
function sourceUrl(value: unknown, variable: string, where: string): string {
  return httpUrlNotShown(value, variable, where);
}

/** A URL, or JSON `{"<name>": "<url>"}` (ANCHOR_VERIFY_ETH_RPC_URL per chain, ANCHOR_VERIFY_ESPLORA_URL per network). */
function readUrlOrMap(text: string, variable: string): string | Record<string, string> {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return sourceUrl(trimmed, variable, variable);
  const value = parseJsonVariable(trimmed, variable);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${variable} must be a URL or a JSON object of URLs`, [variable]);
  }
  const map: Record<string, string> = {};
  for (const [name, url] of Object.entries(value))
    map[name] = sourceUrl(url, variable, `${variable}.${name}`);
  if (Object.keys(map).length === 0) throw new ConfigError(`${variable} names no source`, [variable]);
  return map;
}

/**
 * A V1 bundle is Ed25519 only, so it sits below a hybrid_required or pq_only floor (issue 12 item 3):
 * pq_only never accepts it, hybrid_required only when ALLOW_V1_BUNDLES=true is set explicitly.
 */
function v1BundlesAllowed(mode: VerifierModeName, explicit: unknown): boolean {
  if (mode === 'pq_only') {
    if (explicit === true) {
      throw new ConfigError(
        'ALLOW_V1_BUNDLES=true contradicts VERIFIER_MODE=pq_only (V1 bundles are Ed25519 only)',
        ['ALLOW_V1_BUNDLES', 'VERIFIER_MODE'],
      );
    }
    return false;
  }
  if (typeof explicit === 'boolean') return explicit;
  return mode !== 'hybrid_required';
}

/** ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS read as core's per-chain table (P462). */
function finalConfirmationsSetting(text: string): FinalConfirmations {
  try {
    return parseFinalConfirmations(text);
  } catch (error) {
    throw new ConfigError(`ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS ${(error as Error).message}`, [
      'ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS',
    ]);
  }
}

/** Validates the environment; throws ConfigError naming the variable at fault. */
export function loadVerificationConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): VerificationConfig {
  const raw = loadConfig<Record<string, unknown> & SharedConfig>(VERIFICATION_ENV, env);
  const workers = (raw['VERIFY_WORKERS'] as number | undefined) ?? Math.max(1, availableParallelism());
  if ((raw['VERIFY_WORKERS_MIN'] as number) > workers) {
    throw new ConfigError(`VERIFY_WORKERS_MIN exceeds VERIFY_WORKERS (${workers})`, [
      'VERIFY_WORKERS_MIN',
      'VERIFY_WORKERS',
    ]);
  }
  const policy = typeof raw['VERIFIER_POLICY'] === 'string' ? readPolicy(raw['VERIFIER_POLICY']) : undefined;
  const text = (name: string) => (typeof raw[name] === 'string' ? (raw[name] as string) : undefined);
  const ethRpc = text('ANCHOR_VERIFY_ETH_RPC_URL');
  const esplora = text('ANCHOR_VERIFY_ESPLORA_URL');
  const logs = readLogSources(
    text('ANCHOR_VERIFY_LOG_URL'),
    text('ANCHOR_VERIFY_LOG_KEY'),
    text('ANCHOR_VERIFY_WITNESS_KEYS'),
    raw['ANCHOR_VERIFY_WITNESS_QUORUM'] as number | undefined,
  );
  const consoleLogText = text('CONSOLE_LOG_URL');
  const consoleLog =
    consoleLogText === undefined
      ? logs?.[0]?.url
      : logBaseUrl(consoleLogText, 'CONSOLE_LOG_URL', 'CONSOLE_LOG_URL');
  const config: Record<string, unknown> = {
    ...raw,
    ALLOW_V1_BUNDLES: v1BundlesAllowed(raw['VERIFIER_MODE'] as VerifierModeName, raw['ALLOW_V1_BUNDLES']),
    VERIFY_WORKERS: workers,
    VERIFY_QUEUE_MAX: (raw['VERIFY_QUEUE_MAX'] as number | undefined) ?? workers * 32,
    ...(policy === undefined ? {} : { VERIFIER_POLICY: policy }),
    REVOCATION_SOURCES: parseRevocationSources(text('REVOCATION_SOURCES'), 'REVOCATION_SOURCES', {
      allowInsecureHttp: raw['REVOCATION_ALLOW_INSECURE_HTTP'] === true,
    }),
    REVOCATION_UNLISTED_JURISDICTIONS: parseUnlistedJurisdictions(text('REVOCATION_UNLISTED_JURISDICTIONS')),
    ATTESTATION_TRUSTED_KEYS: parseAttestationTrustedKeys(text('ATTESTATION_TRUSTED_KEYS')),
    ...(ethRpc === undefined
      ? {}
      : { ANCHOR_VERIFY_ETH_RPC_URL: readUrlOrMap(ethRpc, 'ANCHOR_VERIFY_ETH_RPC_URL') }),
    ...(esplora === undefined
      ? {}
      : { ANCHOR_VERIFY_ESPLORA_URL: readUrlOrMap(esplora, 'ANCHOR_VERIFY_ESPLORA_URL') }),
    ...(logs === undefined ? {} : { ANCHOR_VERIFY_LOG_URL: logs }),
    ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS: finalConfirmationsSetting(
      text('ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS') ?? DEFAULT_FINAL_CONFIRMATIONS_TEXT,
    ),
    ...(consoleLog === undefined ? {} : { CONSOLE_LOG_URL: consoleLog }),
  };
  // Every field was validated above (env-schema, then the parsers): the shape is VerificationConfig.
  return config as unknown as VerificationConfig;
}
