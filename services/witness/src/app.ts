// The witness's Fastify app: the kit's base, its cosigning key, the logs it witnesses, the store that
// holds what it cosigned, metrics and routes. c2sp.org/tlog-witness; issue 18 item 2; docs/architecture.md §3–4.
import { selectCryptoBackend, type WitnessedLog } from '@proto/core';
import { createService, type ServiceOptions } from '@proto/service-kit';
import { openStore, type Store, type StoreOptions } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import packageJson from '../package.json' with { type: 'json' };
import type { WitnessConfig } from './config.ts';
import { witnessRoutes } from './routes.ts';
import { Witness } from './witness.ts';
import { loadWitnessKey, type WitnessKey } from './witness-key.ts';
import { loadWitnessedLogs } from './witnessed-logs.ts';

export const SERVICE_NAME = 'witness';
export const SERVICE_VERSION: string = packageJson.version;

export interface WitnessHandle {
  readonly store: Store;
  readonly key: WitnessKey;
  /** `<name>+<key id>+<base64>`: configure it in the log (and in verifiers' witness policies). */
  readonly vkey: string;
  readonly logs: readonly WitnessedLog[];
  readonly witness: Witness;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The witness's parts (tests, operators' scripts). */
    witness: WitnessHandle;
  }
}

export interface BuildWitnessOptions {
  readonly config: WitnessConfig;
  readonly logger?: ServiceOptions['logger'];
  /** Overrides of the store options derived from DATABASE_URL / DATA_DIR (tests: a PostgreSQL schema). */
  readonly store?: Partial<StoreOptions>;
  readonly clock?: () => Date;
}

export async function buildWitness(options: BuildWitnessOptions): Promise<FastifyInstance> {
  const { config } = options;
  const clock = options.clock ?? (() => new Date());
  const backend = selectCryptoBackend(config.CRYPTO_BACKEND);
  const logs = loadWitnessedLogs(config);

  const app = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description:
      'C2SP tlog-witness: verifies that each checkpoint a log submits is consistent with the last one it ' +
      'cosigned for that log, then answers a cosignature/v1 (Ed25519) over it.',
    config,
    bodyLimit: config.WITNESS_BODY_LIMIT,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    health: () => ({ logs: logs.length, crypto_backend: backend.name }),
  });

  let store: Store | undefined;
  try {
    const key = loadWitnessKey({
      name: config.WITNESS_NAME,
      keyFile: config.WITNESS_KEY_FILE,
      dataDir: config.DATA_DIR,
      backend,
      log: app.log,
    });
    if (logs.length === 0) app.log.warn('no log configured (WITNESS_LOGS): every checkpoint is answered 404');
    for (const log of logs) app.log.info({ origin: log.origin, keys: log.keys.length }, 'witnessing log');
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
    const witness = new Witness({ repository: store.witness, logs, key, backend, clock });

    const metrics = app.serviceMetrics;
    const cosigned = metrics.counter('witness_cosigned_total', 'Checkpoints cosigned, by log origin', [
      'origin',
    ]);
    const refused = metrics.counter(
      'witness_refused_total',
      'add-checkpoint requests refused, by reason (malformed, unknown_log, bad_signature, old_size_mismatch, inconsistent)',
      ['reason'],
    );

    app.decorate('witness', { store, key, vkey: key.vkey, logs, witness } satisfies WitnessHandle);
    app.addReadinessCheck('store', () => openedStore.ping());
    app.addHook('onClose', async () => {
      await openedStore.close();
    });
    await app.register(witnessRoutes, {
      witness,
      vkey: key.vkey,
      profile: app.protocolProfile,
      bodyLimit: config.WITNESS_BODY_LIMIT,
      rateLimitPerMinute: config.ADD_RATE_LIMIT_PER_MINUTE > 0 ? config.ADD_RATE_LIMIT_PER_MINUTE : undefined,
      onCosigned: (origin) => cosigned.inc({ origin }),
      onRefused: (reason) => refused.inc({ reason }),
    });
  } catch (error) {
    await store?.close().catch(() => undefined);
    await app.close();
    throw error;
  }
  return app;
}
