// The transparency log's Fastify app: the kit's base, the store, checkpoint keys, sequencer, checkpoint and
// anchor timers, and the routes. SPEC.md "Transparency log service"; DECISIONS D18, D22; docs/architecture.md §3–4.

import { installConsole } from '@proto/console';
import { selectCryptoBackend } from '@proto/core';
import {
  ConfigError,
  createService,
  operatorTokenGuard,
  resolveOperatorTokens,
  type ServiceOptions,
} from '@proto/service-kit';
import { openStore, type Store, type StoreOptions } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import packageJson from '../package.json' with { type: 'json' };
import { cacheReadRoutes } from './cache-control.ts';
import { Checkpointer } from './checkpointer.ts';
import type { TransparencyLogConfig } from './config.ts';
import { allowCrossOriginReads, lookupRoute } from './console-routes.ts';
import { InFlight } from './in-flight.ts';
import { ROOT_ANCHOR_FAILURE_REASONS, RootAnchorer } from './root-anchor.ts';
import { sweepUnpublishedRootAnchors } from './root-anchor-sweep.ts';
import { logRoutes } from './routes.ts';
import { Sequencer } from './sequencer.ts';
import { type LogSigningKeys, loadLogSigningKeys } from './signing-keys.ts';
import { tileRoutes } from './tile-routes.ts';
import { NodeCache } from './tree.ts';
import { Witnessing } from './witnessing.ts';

export const SERVICE_NAME = 'transparency-log';
// The released version is the package's, so /health, capabilities and the OpenAPI document never drift from it.
export const SERVICE_VERSION: string = packageJson.version;
/** Stored nodes kept in memory (about 100 bytes each); they never change, so the cache is always right. */
export const NODE_CACHE_ENTRIES = 200_000;

export interface TransparencyLogHandle {
  readonly store: Store;
  readonly sequencer: Sequencer;
  readonly checkpointer: Checkpointer;
  readonly anchorer: RootAnchorer | undefined;
  readonly keys: LogSigningKeys;
  /** Set when LOG_WITNESSES names witnesses (issue 18). */
  readonly witnessing: Witnessing | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The log's parts (tests, operators' scripts: force a checkpoint or an anchoring round). */
    transparencyLog: TransparencyLogHandle;
  }
}

export interface BuildTransparencyLogOptions {
  readonly config: TransparencyLogConfig;
  readonly logger?: ServiceOptions['logger'];
  /** Overrides of the store options derived from DATABASE_URL / DATA_DIR (tests: a PostgreSQL schema). */
  readonly store?: Partial<StoreOptions>;
  readonly clock?: () => Date;
  /** Start the checkpoint and anchoring timers (default true). */
  readonly timers?: boolean;
  readonly fetch?: typeof fetch;
}

/** The facts every instance of one log must agree on (D18: one origin, one pair of keys). */
async function checkLogIdentity(
  store: Store,
  config: TransparencyLogConfig,
  keys: LogSigningKeys,
  log: FastifyInstance['log'],
) {
  const origin = await store.log.initMeta('origin', config.LOG_ORIGIN);
  if (origin !== config.LOG_ORIGIN) {
    throw new ConfigError(
      `LOG_ORIGIN is ${JSON.stringify(config.LOG_ORIGIN)} but this database holds the log ${JSON.stringify(origin)}`,
      ['LOG_ORIGIN'],
    );
  }
  const vkeys = keys.vkeys.join('\n');
  const recorded = await store.log.initMeta('verifier_keys', vkeys);
  if (recorded === vkeys) return;
  if (!config.LOG_ACCEPT_NEW_KEYS) {
    throw new ConfigError(
      'the configured checkpoint keys are not the keys this log signs with (set LOG_ED25519_KEY / LOG_MLDSA_KEY ' +
        'to the log keys, or LOG_ACCEPT_NEW_KEYS=true to rotate them)',
      ['LOG_ED25519_KEY', 'LOG_MLDSA_KEY'],
    );
  }
  await store.log.setMeta('verifier_keys', vkeys);
  log.warn(
    { previous: recorded.split('\n').map((k) => k.slice(0, 60)) },
    'checkpoint keys rotated (LOG_ACCEPT_NEW_KEYS)',
  );
}

/** The witness submissions and their metrics (proto_log_witness_*), or undefined when none are configured. */
function buildWitnessing(
  config: TransparencyLogConfig,
  parts: {
    readonly store: Store;
    readonly nodes: NodeCache;
    readonly backend: ReturnType<typeof selectCryptoBackend>;
    readonly fetch: typeof fetch;
    readonly log: FastifyInstance['log'];
    readonly metrics: FastifyInstance['serviceMetrics'];
    readonly clock: () => Date;
  },
): Witnessing | undefined {
  if (config.LOG_WITNESSES.length === 0) return undefined;
  const { metrics } = parts;
  const submissions = metrics.counter(
    'log_witness_submissions_total',
    'add-checkpoint requests to a witness, by outcome (cosigned, refused, invalid, timeout, unavailable)',
    ['witness', 'outcome'],
  );
  const published = metrics.gauge(
    'log_witness_published_tree_size',
    'Size of the newest checkpoint published with the witness quorum',
  );
  // 0 until a first checkpoint has its quorum, so LogWitnessQuorumLagging also sees a log never published.
  published.set(0);
  const witnessing: Witnessing = new Witnessing({
    repository: parts.store.log,
    cosignatures: parts.store.logCosignatures,
    nodes: parts.nodes,
    witnesses: config.LOG_WITNESSES,
    quorum: config.LOG_WITNESS_QUORUM,
    timeoutMs: config.LOG_WITNESS_TIMEOUT_MS,
    retryBaseMs: config.CHECKPOINT_INTERVAL_MS,
    retryMaxMs: config.LOG_WITNESS_RETRY_MAX_MS,
    downLogIntervalMs: config.LOG_WITNESS_DOWN_LOG_INTERVAL_MS,
    backend: parts.backend,
    fetch: parts.fetch,
    log: parts.log,
    clock: parts.clock,
    onOutcome: (witness, outcome) => submissions.inc({ witness: witness.id, outcome }),
    onPublished: (checkpoint) => published.set(checkpoint.size),
  });
  metrics.gauge(
    'log_witness_cosigned_tree_size',
    'Largest checkpoint size each witness is known to have cosigned',
    ['witness'],
    (g) => {
      for (const witness of config.LOG_WITNESSES) {
        const size = witnessing.cosignedSize(witness);
        if (size !== undefined) g.set({ witness: witness.id }, size);
      }
    },
  );
  metrics.gauge(
    'log_witness_up',
    'Whether each witness answered the last add-checkpoint request (1) or is down and retried with backoff (0)',
    ['witness'],
    (g) => {
      for (const witness of config.LOG_WITNESSES)
        g.set({ witness: witness.id }, witnessing.isUp(witness) ? 1 : 0);
    },
  );
  metrics.gauge(
    'log_witness_consecutive_failures',
    'Failed add-checkpoint requests in a row to a witness that is down (0 when it is up)',
    ['witness'],
    (g) => {
      for (const witness of config.LOG_WITNESSES)
        g.set({ witness: witness.id }, witnessing.consecutiveFailures(witness));
    },
  );
  metrics.gauge('log_witness_quorum', 'Witness cosignatures a checkpoint needs to be published', [], (g) =>
    g.set(config.LOG_WITNESS_QUORUM),
  );
  return witnessing;
}

export async function buildTransparencyLog(options: BuildTransparencyLogOptions): Promise<FastifyInstance> {
  const { config } = options;
  const clock = options.clock ?? (() => new Date());
  const backend = selectCryptoBackend(config.CRYPTO_BACKEND);
  const state: { sequencer?: Sequencer; checkpointer?: Checkpointer } = {};

  const app = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description:
      'Append-only RFC 9162 log of bundle hashes with C2SP signed checkpoints (Ed25519 + ML-DSA-65), ' +
      'inclusion and consistency proofs (D18).',
    config,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    health: () => ({
      tree_size: state.checkpointer?.lastSeenSize ?? 0,
      signed_tree_size: state.checkpointer?.latest?.size ?? 0,
      pending: state.sequencer?.pending ?? 0,
      crypto_backend: backend.name,
    }),
  });

  let store: Store | undefined;
  try {
    // Appends need a token (issue 12 row h): generated into DATA_DIR when OPERATOR_TOKEN is unset.
    const tokens = resolveOperatorTokens({
      value: config.OPERATOR_TOKEN,
      dataDir: config.DATA_DIR,
      filePath: config.OPERATOR_TOKEN_FILE,
      required: true,
      log: app.log,
    });
    if (tokens === undefined) throw new Error('an operator token is required for POST /add');
    const keys = loadLogSigningKeys({
      origin: config.LOG_ORIGIN,
      ed25519Key: config.LOG_ED25519_KEY,
      mlDsaKey: config.LOG_MLDSA_KEY,
      dataDir: config.DATA_DIR,
      backend,
      log: app.log,
    });
    store = await openStore({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      name: SERVICE_NAME,
      pgSchema: config.DATABASE_SCHEMA,
      clock,
      onPoolError: (error) => app.log.warn({ err: error }, 'idle PostgreSQL connection failed'),
      ...options.store,
    });
    const openedStore = store;
    await checkLogIdentity(store, config, keys, app.log);
    const repository = store.log;

    const metrics = app.serviceMetrics;
    const appends = metrics.counter('tlog_appends_total', 'POST /add answered, by outcome', ['outcome']);
    const batchSize = metrics.histogram(
      'tlog_batch_size',
      'Appends per committed batch',
      [],
      [1, 4, 16, 64, 128, 256, 1024, 4096],
    );
    const batchSeconds = metrics.histogram('tlog_batch_commit_seconds', 'Duration of one batch transaction');
    const batchFailures = metrics.counter('tlog_batch_failures_total', 'Batches whose transaction failed');
    const treeSize = metrics.gauge('tlog_tree_size', 'Committed tree size seen by this instance');
    const signedSize = metrics.gauge('tlog_signed_tree_size', 'Size of the latest signed checkpoint');
    const checkpointFailures = metrics.counter(
      'tlog_checkpoint_failures_total',
      'Checkpoint rounds that failed (signing, store, or an inconsistent tree)',
    );
    metrics.gauge(
      'tlog_checkpoint_age_seconds',
      'Seconds since the newest checkpoint this instance signed or saw was signed',
      [],
      (g) => {
        const latest = state.checkpointer?.latest;
        if (latest !== undefined)
          g.set(Math.max(0, (clock().getTime() - Date.parse(latest.signedAt)) / 1000));
      },
    );
    metrics.gauge('tlog_pending_appends', 'Appends waiting for or in a batch', [], (g) => {
      g.set(state.sequencer?.pending ?? 0);
    });

    const nodes = new NodeCache(repository, NODE_CACHE_ENTRIES);
    const witnessing = buildWitnessing(config, {
      store,
      nodes,
      backend,
      fetch: options.fetch ?? fetch,
      log: app.log,
      metrics,
      clock,
    });
    const checkpointer = new Checkpointer({
      repository,
      nodes,
      origin: config.LOG_ORIGIN,
      signers: keys.signers,
      backend,
      intervalMs: config.CHECKPOINT_INTERVAL_MS,
      clock,
      log: app.log,
      onSigned: (checkpoint) => signedSize.set(checkpoint.size),
      onFailure: () => checkpointFailures.inc(),
      witnessing,
    });
    const sequencer = new Sequencer({
      batchMax: config.BATCH_MAX,
      batchWaitMs: config.BATCH_WAIT_MS,
      maxPending: config.MAX_PENDING,
      commit: (leaves) => repository.append(leaves, clock()),
      onBatch: (report) => {
        if (report.error !== undefined) {
          batchFailures.inc();
          app.log.error(
            { err: report.error, batch: report.size },
            'batch commit failed; its appends were refused',
          );
          return;
        }
        batchSize.observe(report.size);
        batchSeconds.observe(report.durationMs / 1000);
        if (report.treeSize !== undefined) {
          treeSize.set(report.treeSize);
          checkpointer.observeSize(report.treeSize);
        }
      },
    });
    state.sequencer = sequencer;
    state.checkpointer = checkpointer;

    const anchorFailures =
      config.ANCHOR_SERVICE_URL === undefined
        ? undefined
        : metrics.counter(
            'log_root_anchor_failures_total',
            'Root anchoring steps that failed, by reason (request_unavailable, request_refused, anchor_failed, poll_failed)',
            ['reason'],
          );
    // Every reason at 0 from the start, so the alert's increase() sees the first fault of each.
    for (const reason of ROOT_ANCHOR_FAILURE_REASONS) anchorFailures?.inc({ reason }, 0);
    const anchorer =
      config.ANCHOR_SERVICE_URL === undefined
        ? undefined
        : new RootAnchorer({
            repository,
            url: config.ANCHOR_SERVICE_URL,
            token: config.ANCHOR_TOKEN,
            chain: config.ANCHOR_CHAIN,
            intervalMs: config.ROOT_ANCHOR_INTERVAL_MS,
            finalConfirmations: config.ROOT_ANCHOR_FINAL_CONFIRMATIONS,
            timeoutMs: config.ANCHOR_TIMEOUT_MS,
            clock,
            log: app.log,
            ...(options.fetch ? { fetch: options.fetch } : {}),
            onFailure: (reason) => anchorFailures?.inc({ reason }),
            // P394: with witnesses, only the checkpoint the quorum cosigned (it is the one served) is anchored.
            ...(witnessing === undefined ? {} : { anchorable: () => witnessing.published }),
          });

    // Cosignatures gathered before a restart are published at once, whether or not a witness answers now.
    await witnessing?.refresh();
    // P461: once per database, before the anchorer reads its latest anchor.
    await sweepUnpublishedRootAnchors({
      repository,
      quorumCosigned: witnessing === undefined ? undefined : (size) => witnessing.quorumCosigned(size),
      log: app.log,
    });
    // A checkpoint exists before the first request: sign the current tree now if none covers it.
    const first = await checkpointer.tick();
    if (first !== undefined) signedSize.set(first.size);
    treeSize.set(checkpointer.lastSeenSize);
    await anchorer?.refresh();

    app.decorate('transparencyLog', {
      store,
      sequencer,
      checkpointer,
      anchorer,
      keys,
      witnessing,
    } satisfies TransparencyLogHandle);
    app.addReadinessCheck('store', () => openedStore.ping());
    if (options.timers !== false) {
      app.addHook('onReady', async () => {
        checkpointer.start();
        anchorer?.start();
      });
    }
    // Fastify closes after in-flight requests finish, except those whose client left: commit what was
    // accepted, wait for every handler still running, stop the timers, then close the store.
    const inFlight = new InFlight();
    app.addHook('onClose', async () => {
      await sequencer.close();
      await inFlight.idle();
      await checkpointer.stop();
      await anchorer?.stop();
      await openedStore.close();
    });

    await app.register(logRoutes, {
      repository,
      sequencer,
      nodes,
      checkpointer,
      anchorer,
      keys,
      origin: config.LOG_ORIGIN,
      entriesPageMax: config.ENTRIES_PAGE_MAX,
      checkpointIntervalMs: config.CHECKPOINT_INTERVAL_MS,
      witnessed: witnessing !== undefined,
      addGuard: operatorTokenGuard(tokens),
      addRateLimitPerMinute:
        config.ADD_RATE_LIMIT_PER_MINUTE > 0 ? config.ADD_RATE_LIMIT_PER_MINUTE : undefined,
      onAppend: (created) => appends.inc({ outcome: created ? 'created' : 'existing' }),
      inFlight,
    });
    // Issue 17: the log explorer at `/`, look-up by bundle hash, and cross-origin reads for other pages.
    allowCrossOriginReads(app);
    cacheReadRoutes(app);
    await app.register(lookupRoute, {
      repository,
      inFlight,
      nodes,
      trees: {
        witnessed: witnessing !== undefined,
        publishedSize: () => checkpointer.published?.size,
        retryAfterMs: config.CHECKPOINT_INTERVAL_MS,
      },
    });
    await app.register(tileRoutes, {
      repository,
      inFlight,
      nodes,
      signedSize: () => checkpointer.published?.size ?? 0,
    });
    await installConsole(app, { page: 'log' });
  } catch (error) {
    await store?.close().catch(() => undefined);
    await app.close();
    throw error;
  }
  return app;
}
