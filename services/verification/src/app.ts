// The verification service's Fastify app: the kit's base, a verifier, the worker pool, the cache and
// the routes, plus a hook for more route plugins (the /v2 records). SPEC.md endpoints; ARCHITECTURE §3.
import { createVerifier, selectCryptoBackend } from '@proto/core';
import { ConfigError, createService, type ServiceOptions } from '@proto/service-kit';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { VerificationCache } from './cache.ts';
import type { VerificationConfig } from './config.ts';
import { createExternalChecks, type ExternalChecks } from './external-checks.ts';
import { createVerificationMetrics } from './metrics.ts';
import { VerifyPool } from './pool.ts';
import { anchorRoute } from './routes/anchor.ts';
import { capabilitiesRoute } from './routes/capabilities.ts';
import { verifyRoutes } from './routes/verify.ts';
import { portableVerifierOptions } from './verifier-options.ts';

export const SERVICE_NAME = 'verification';
export const SERVICE_VERSION = '2.0.3';

declare module 'fastify' {
  interface FastifyInstance {
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
    maxQueue: config.VERIFY_QUEUE_MAX,
    verifier: portable,
  });
  const cache = new VerificationCache(config.VERIFICATION_CACHE_MAX_ENTRIES);
  app.decorate('verificationCache', cache);
  app.addReadinessCheck('verify-pool', () => pool.liveThreads > 0);
  // Runs after the server has stopped and in-flight requests are answered: finish tasks, stop threads.
  app.addHook('onClose', async () => {
    await pool.close();
  });

  const external = createExternalChecks({
    config,
    profile: verifier.profile,
    mode: config.VERIFIER_MODE,
    // D20: a revocation seen for the first time evicts every cached analysis of that agent.
    onNewRevocation: (agentId) => {
      const evicted = cache.invalidateAgent(agentId);
      if (evicted > 0) app.log.info({ agent_id: agentId, evicted }, 'revoked agent: cached analyses evicted');
    },
    log: app.log,
  });
  app.decorate('externalChecks', external);

  const metrics = createVerificationMetrics(app.serviceMetrics, { pool, cache });
  await app.register(verifyRoutes, {
    verifier,
    pool,
    cache,
    metrics,
    external,
    rateLimitPerMinute: config.VERIFY_RATE_LIMIT_PER_MINUTE,
    batch: { maxItems: config.VERIFY_BATCH_MAX_ITEMS, maxBytes: config.VERIFY_BATCH_MAX_BYTES },
  });
  await app.register(capabilitiesRoute, {
    verifier,
    backend,
    protocolVersion: config.DCP_VERSION,
    revocationListsChecked: Object.keys(config.REVOCATION_SOURCES).length > 0,
  });
  await app.register(
    anchorRoute,
    config.ANCHOR_SERVICE_URL ? { anchorServiceUrl: config.ANCHOR_SERVICE_URL } : {},
  );
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
