// The verification service's Fastify app: the kit's base, a verifier, the worker pool, the cache and
// the routes, plus a hook for more route plugins (the /v2 records). SPEC.md endpoints; docs/architecture.md §3.
import { installConsole, originOf } from '@proto/console';
import { createVerifier, selectCryptoBackend } from '@proto/core';
import { ConfigError, createService, DEFAULT_BODY_LIMIT, type ServiceOptions } from '@proto/service-kit';
import { openStore, type StoreOptions } from '@proto/store';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import packageJson from '../package.json' with { type: 'json' };
import { countAnchorLookup } from './anchor-lookups.ts';
import { VerificationCache } from './cache.ts';
import type { VerificationConfig } from './config.ts';
import { createExternalChecks, type ExternalChecks } from './external-checks.ts';
import { consoleWitnesses, logWitnessQuorums } from './log-witness-settings.ts';
import { type AnchorLookupCount, createVerificationMetrics } from './metrics.ts';
import { VerifyPool } from './pool.ts';
import { anchorRoute } from './routes/anchor.ts';
import { capabilitiesRoute } from './routes/capabilities.ts';
import { verifyRoutes } from './routes/verify.ts';
import { portableVerifierOptions } from './verifier-options.ts';

export const SERVICE_NAME = 'verification';
// The released version is the package's, so /health, capabilities and the OpenAPI document never drift from it.
export const SERVICE_VERSION: string = packageJson.version;

declare module 'fastify' {
  interface FastifyInstance {
    /** The verifier's maximum key age in days, which the key directory applies at every look-up (P230). */
    maxKeyAgeDays?: number;
    /**
     * P377: whether the operator's floor (VERIFIER_MODE hybrid_required or pq_only) demands both signature halves, so
     * a /v2 record's signature carries its ML-DSA half too.
     */
    requirePqSignatures?: boolean;
    /** The analysis cache; see invalidateByKid / invalidateByAgent. */
    verificationCache: VerificationCache;
    /** Revocation (D20), attestation (D21) and anchor (D19) checks of POST /verify. */
    externalChecks: ExternalChecks;
  }
}

/** A route plugin mounted on the verification app (e.g. the /v2 record routes), with its options. */
export type ExtraPlugin =
  | FastifyPluginAsync
  | { readonly plugin: FastifyPluginAsync; readonly options?: Record<string, unknown> };

export interface BuildVerificationAppOptions {
  readonly config: VerificationConfig;
  /** Route plugins registered after the built-in routes (the /v2 records live in src/records). */
  readonly extraPlugins?: readonly ExtraPlugin[];
  readonly logger?: ServiceOptions['logger'];
  /** Key prefix of the rate-limit store (tests keep theirs apart). */
  readonly rateLimitKeyPrefix?: string;
  /** Store of the revocation list watermarks (default: DATA_DIR's SQLite file or DATABASE_URL). */
  readonly revocationStore?: StoreOptions;
}

export async function buildVerificationApp(options: BuildVerificationAppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const portable = portableVerifierOptions(config);
  const backend = selectCryptoBackend(config.CRYPTO_BACKEND);
  // Built here as well as in each worker: a bad policy stops the boot, and cache hits finalize here.
  const built = createVerifier({ ...portable.options, backend });
  if (!built.ok) {
    throw new ConfigError(`Invalid verifier configuration: ${built.error.message}`, [
      'VERIFIER_POLICY',
      'VERIFIER_MODE',
    ]);
  }
  const verifier = built.value;

  const app = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Verifies Signed Bundles (V1 and V2) against the full checklist.',
    config,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.rateLimitKeyPrefix === undefined
      ? {}
      : { rateLimit: { keyPrefix: options.rateLimitKeyPrefix } }),
    health: () => ({ crypto_backend: backend.name }),
  });

  const pool = new VerifyPool({
    threads: config.VERIFY_WORKERS,
    minThreads: config.VERIFY_WORKERS_MIN,
    idleTimeoutMs: config.VERIFY_WORKER_IDLE_MS,
    maxQueue: config.VERIFY_QUEUE_MAX,
    verifier: portable,
    heapMb: config.VERIFY_THREAD_HEAP_MB,
  });
  const cache = new VerificationCache(
    config.VERIFICATION_CACHE_MAX_ENTRIES,
    Date.now,
    config.VERIFICATION_CACHE_MAX_BYTES,
  );
  app.decorate('verificationCache', cache);
  app.decorate('maxKeyAgeDays', verifier.settings.maxKeyAgeDays);
  app.decorate(
    'requirePqSignatures',
    config.VERIFIER_MODE === 'hybrid_required' || config.VERIFIER_MODE === 'pq_only',
  );
  app.addReadinessCheck('verify-pool', () => pool.ready);
  // Runs after the server has stopped and in-flight requests are answered: finish tasks, stop threads.
  app.addHook('onClose', async () => {
    await pool.close();
  });

  // Issue 12 row k: the highest list_number per source outlives this process (and is shared by replicas).
  const revocationStore =
    Object.keys(config.REVOCATION_SOURCES).length === 0
      ? undefined
      : await openStore(
          options.revocationStore ?? {
            databaseUrl: config.DATABASE_URL,
            dataDir: config.DATA_DIR,
            name: 'verification',
            ...(config.DATABASE_SCHEMA === undefined ? {} : { pgSchema: config.DATABASE_SCHEMA }),
            onPoolError: (error) => app.log.warn({ err: error }, 'revocation store: idle connection failed'),
          },
        );
  if (revocationStore !== undefined) app.addHook('onClose', async () => revocationStore.close());

  const revocationFetchedAt = new Map<string, number>();
  const anchorLookups = new Map<string, AnchorLookupCount>();
  const external = createExternalChecks({
    config,
    ...(revocationStore === undefined ? {} : { revocationWatermarks: revocationStore.revocationWatermarks }),
    profile: verifier.profile,
    mode: config.VERIFIER_MODE,
    // D20: a revocation seen for the first time evicts every cached analysis it touches. A list entry's
    // `agent_id` names an agent or a signer's kid (the checker looks up both), so both indexes are
    // searched: PROTOCOL §8.3's invalidateByKid on revocation (P234).
    onNewRevocation: (revokedId) => {
      const evicted = cache.invalidateAgent(revokedId) + cache.invalidateKid(revokedId);
      if (evicted > 0)
        app.log.info({ revoked_id: revokedId, evicted }, 'revocation: cached analyses evicted');
    },
    log: app.log,
    onRevocationFetched: (jurisdiction) => revocationFetchedAt.set(jurisdiction, Date.now()),
    onAnchorLookup: (result) => countAnchorLookup(anchorLookups, result, verifier.profile),
  });
  app.decorate('externalChecks', external);

  const metrics = createVerificationMetrics(app.serviceMetrics, {
    pool,
    cache,
    revocation: {
      checker: external.revocation,
      jurisdictions: Object.keys(config.REVOCATION_SOURCES),
      lastSuccess: revocationFetchedAt,
    },
    anchorLookups,
  });
  await app.register(verifyRoutes, {
    verifier,
    pool,
    cache,
    metrics,
    external,
    rateLimitPerMinute: config.VERIFY_RATE_LIMIT_PER_MINUTE,
    batch: {
      maxItems: config.VERIFY_BATCH_MAX_ITEMS,
      maxBytes: config.VERIFY_BATCH_MAX_BYTES,
      groupSize: config.VERIFY_BATCH_GROUP,
    },
  });
  await app.register(capabilitiesRoute, {
    verifier,
    backend,
    protocolVersion: config.DCP_VERSION,
    revocationListsChecked: Object.keys(config.REVOCATION_SOURCES).length > 0,
    logWitnesses: logWitnessQuorums(config),
  });
  await app.register(anchorRoute, {
    timeoutMs: config.ANCHOR_FORWARD_TIMEOUT_MS,
    ...(config.ANCHOR_SERVICE_URL ? { anchorServiceUrl: config.ANCHOR_SERVICE_URL } : {}),
  });
  // Issue 17: the verify page at `/`; it may fetch the configured log (inclusion checked in the browser).
  const consoleLogOrigin =
    config.CONSOLE_LOG_URL === undefined ? undefined : originOf(config.CONSOLE_LOG_URL);
  await installConsole(app, {
    page: 'verify',
    connectSrc: consoleLogOrigin === undefined ? [] : [consoleLogOrigin],
    config: () => ({
      verifier_mode: config.VERIFIER_MODE,
      capabilities_path: verifier.profile.wellKnown.capabilities,
      // P158: the page refuses a file far beyond what POST /verify reads, before reading it.
      max_body_bytes: app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT,
      ...(config.CONSOLE_LOG_URL === undefined ? {} : { log_url: config.CONSOLE_LOG_URL }),
      // P61: the page checks the checkpoint's witness quorum in the browser with the operator's witness keys.
      ...consoleWitnesses(config),
    }),
  });
  for (const extra of options.extraPlugins ?? []) {
    if (typeof extra === 'function') await app.register(extra);
    else await app.register(extra.plugin, extra.options ?? {});
  }
  return app;
}

/** Evicts cached analyses signed by `kid` (to be called when a key is revoked). Returns the count. */
export function invalidateByKid(app: FastifyInstance, kid: string): number {
  return app.verificationCache.invalidateKid(kid);
}

/** Evicts cached analyses of `agentId` (to be called when an agent is revoked). Returns the count. */
export function invalidateByAgent(app: FastifyInstance, agentId: string): number {
  return app.verificationCache.invalidateAgent(agentId);
}
