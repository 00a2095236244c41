// Assembles the anchor service: store, chain adapters, worker, routes, health listing the chains, metrics.
// SPEC.md "POST /anchor", docs/architecture.md §1 (service :3001) and §4 (durable queue), DECISIONS D19, D22.

import { hostname } from 'node:os';
import { ConfigError, createService, type OperatorTokens, resolveOperatorTokens } from '@proto/service-kit';
import { type AnchorBatch, openStore, type Store } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import packageJson from '../package.json' with { type: 'json' };
import { createAdapters } from './adapters/configured.ts';
import type { ChainAdapter } from './adapters/types.ts';
import { BacklogGate } from './backlog.ts';
import type { AnchorConfig } from './config.ts';
import { createAnchorMetrics } from './metrics.ts';
import { registerAnchorRoutes } from './routes.ts';
import { AnchorWorker } from './worker.ts';

export const SERVICE_NAME = 'anchor';
// The released version is the package's, so /health, capabilities and the OpenAPI document never drift from it.
export const SERVICE_VERSION: string = packageJson.version;

export interface AnchorServiceOptions {
  readonly config: AnchorConfig;
  /** An open store to use (tests); default: opened from DATABASE_URL / DATA_DIR and closed with the app. */
  readonly store?: Store;
  /** Adapters to use instead of the ones built from the configuration (tests). */
  readonly adapters?: ReadonlyMap<string, ChainAdapter>;
  /** false: do not run the worker loop (tests drive `app.anchorWorker` themselves). Default true. */
  readonly startWorker?: boolean;
  readonly logger?: boolean | { readonly stream: { write(line: string): unknown } };
  readonly afterBroadcast?: (batch: AnchorBatch) => void;
  readonly workerOwner?: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    anchorWorker: AnchorWorker;
    anchorStore: Store;
  }
}

export async function buildAnchorService(options: AnchorServiceOptions): Promise<FastifyInstance> {
  const { config } = options;
  const health: { chains: Record<string, unknown>[]; defaultChain: string | null } = {
    chains: [],
    defaultChain: null,
  };
  const app = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description:
      'Anchors bundle hashes on EVM chains, Bitcoin and transparency logs, in RFC 9162 batches (D19)',
    config,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    health: () => ({
      mode: config.ANCHOR_MODE,
      batch_max: config.BATCH_MAX,
      batch_interval_ms: config.BATCH_INTERVAL_MS,
      chains: health.chains,
      default_chain: health.defaultChain,
    }),
  });
  const ownStore = options.store === undefined;
  let store: Store | undefined;
  try {
    const adapters = options.adapters ?? (await createAdapters(config, app.protocolProfile));
    health.chains = [...adapters.values()].map((a) => ({ name: a.name, ...a.describe() }));
    const tokens = resolveOperatorTokens({
      value: config.OPERATOR_TOKEN,
      dataDir: config.DATA_DIR,
      required: true,
      log: app.log,
    }) as OperatorTokens;
    store =
      options.store ??
      (await openStore({
        databaseUrl: config.DATABASE_URL,
        dataDir: config.DATA_DIR,
        name: SERVICE_NAME,
        pgSchema: config.DATABASE_SCHEMA,
      }));
    const repo = store.anchor;

    const anchorMetrics = createAnchorMetrics(app.serviceMetrics, repo, adapters);
    const requests = app.serviceMetrics.counter('anchor_requests_total', 'POST /anchor requests per chain', [
      'chain',
      'result',
    ]);
    app.serviceMetrics.gauge(
      'anchor_open_requests',
      'Requests queued or in a batch not yet confirmed',
      ['chain', 'state'],
      async (gauge) => {
        gauge.reset();
        for (const row of await repo.openCounts())
          gauge.set({ chain: row.chain, state: row.state }, row.count);
      },
    );

    const backlog = new BacklogGate(repo, config.ANCHOR_MAX_BACKLOG);
    const worker = new AnchorWorker({
      repo,
      adapters,
      mode: config.ANCHOR_MODE,
      batchMax: config.BATCH_MAX,
      batchIntervalMs: config.BATCH_INTERVAL_MS,
      pollIntervalMs: config.ANCHOR_POLL_INTERVAL_MS,
      maxAttempts: config.ANCHOR_MAX_ATTEMPTS,
      leaseMs: config.ANCHOR_LEASE_MS,
      reorgWatchDepth: config.ANCHOR_REORG_WATCH_DEPTH,
      log: app.log.child({ component: 'anchor-worker' }),
      onOutcome: (chain, outcome, count = 1) => {
        anchorMetrics.outcome(chain, outcome, count);
        if (outcome === 'sent' || outcome === 'failed') backlog.forget(chain);
      },
      owner: options.workerOwner ?? config.ANCHOR_REPLICA_ID ?? hostname(),
      ...(options.afterBroadcast ? { afterBroadcast: options.afterBroadcast } : {}),
    });
    app.decorate('anchorWorker', worker);
    app.decorate('anchorStore', store);
    app.addHook('onResponse', async (request, reply) => {
      if (request.routeOptions.url === '/anchor' && request.method === 'POST') {
        const chain = (request.body as { chain?: unknown } | undefined)?.chain;
        if (typeof chain === 'string' && adapters.has(chain))
          requests.inc({ chain, result: String(reply.statusCode) });
      }
    });

    const defaultChain =
      config.ANCHOR_DEFAULT_CHAIN ?? (adapters.size === 1 ? [...adapters.keys()][0] : undefined);
    if (defaultChain !== undefined && !adapters.has(defaultChain)) {
      throw new ConfigError(`ANCHOR_DEFAULT_CHAIN ${defaultChain} is not a configured chain`, [
        'ANCHOR_DEFAULT_CHAIN',
      ]);
    }
    health.defaultChain = defaultChain ?? null;
    registerAnchorRoutes(app, {
      defaultChain,
      repo,
      adapters,
      worker,
      tokens,
      mode: config.ANCHOR_MODE,
      waitMs: config.ANCHOR_WAIT_MS,
      backlog,
      retryAfterSeconds: Math.max(1, Math.ceil(config.ANCHOR_POLL_INTERVAL_MS / 1000)),
    });
    const opened = store;
    app.addReadinessCheck('store', () => opened.ping());
    for (const adapter of adapters.values())
      app.addReadinessCheck(`chain:${adapter.name}`, () => adapter.ready());
    if (options.startWorker !== false) app.addHook('onReady', async () => worker.start());
    app.addHook('onClose', async () => {
      await worker.stop();
      if (ownStore) await opened.close();
    });
    return app;
  } catch (error) {
    if (ownStore) await store?.close();
    await app.close();
    throw error;
  }
}
