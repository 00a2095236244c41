// The /v2 records as mounted on the verification service: opens the durable store from the environment,
// adds the /v2 headers and the routes. Implements ARCHITECTURE §4 (durable stores) and D17 (limits).
import { DEFAULT_PROFILE, type ProtocolProfile, selectCryptoBackend } from '@proto/core';
import {
  type EnvProperties,
  loadConfig,
  OPERATOR_TOKEN_ENV,
  parseTokenList,
  SHARED_ENV_PROPERTIES,
} from '@proto/service-kit';
import { openStore, type Store } from '@proto/store';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { v2ResponseHeaders } from './headers.ts';
import { keyBindingFeeder, storeKeyLookup, type VerifiedBundleEvent } from './key-binding-feeder.ts';
import { keyDirectoryRoutes } from './keys-route.ts';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from './rate-limit.ts';
import { recordRoutes } from './routes.ts';
import {
  createWriteAuthorizer,
  type KeyBindingLookup,
  WRITE_POLICIES,
  type WritePolicy,
} from './write-authorization.ts';

/** Variables of the /v2 records (validated at boot; DATA_DIR and DATABASE_URL are the kit's shared ones). */
export const RECORDS_ENV = {
  DATA_DIR: SHARED_ENV_PROPERTIES.DATA_DIR,
  DATABASE_URL: SHARED_ENV_PROPERTIES.DATABASE_URL,
  STORE_MAX_ENTRIES: {
    type: 'integer',
    minimum: 1,
    default: 10_000,
    description: 'Records kept per /v2 record kind, oldest evicted first (D17)',
  },
  V2_RATE_LIMIT_PER_MINUTE: {
    type: 'integer',
    minimum: 0,
    default: DEFAULT_RATE_LIMIT_PER_MINUTE,
    description: 'POSTs per minute per client IP across all /v2 routes (0: no limit; D17)',
  },
  RECORDS_WRITE_POLICY: {
    type: 'string',
    enum: [...WRITE_POLICIES],
    default: 'signed',
    description:
      'signed: a record POST needs a signature by a key bound to its subject, or the operator token; open: anyone (development)',
  },
  OPERATOR_TOKEN: OPERATOR_TOKEN_ENV.OPERATOR_TOKEN,
} as const satisfies EnvProperties;

export interface RecordsConfig {
  readonly DATA_DIR: string;
  readonly DATABASE_URL?: string;
  readonly STORE_MAX_ENTRIES: number;
  readonly V2_RATE_LIMIT_PER_MINUTE: number;
  readonly RECORDS_WRITE_POLICY: WritePolicy;
  readonly OPERATOR_TOKEN?: string;
}

export function loadRecordsConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): RecordsConfig {
  return loadConfig<RecordsConfig>(RECORDS_ENV, env);
}

/** SQLite file `<DATA_DIR>/verification.sqlite`, or PostgreSQL at DATABASE_URL. */
export function openRecordStore(config: RecordsConfig, onPoolError?: (error: Error) => void): Promise<Store> {
  return openStore({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    name: 'verification',
    maxEntriesPerKind: config.STORE_MAX_ENTRIES,
    ...(onPoolError === undefined ? {} : { onPoolError }),
  });
}

export interface RecordsPluginOptions {
  /** Use this store. Default: open one from the environment, closed with the app. */
  readonly store?: Store;
  /** Close `store` when the app closes (default false: its opener closes it). */
  readonly closeStore?: boolean;
  /** Environment to read (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Overrides V2_RATE_LIMIT_PER_MINUTE. */
  readonly rateLimitPerMinute?: number;
  readonly profile?: ProtocolProfile;
  /** Whose keys are whose (issue 15 item 1). Default: an empty in-memory directory. */
  readonly keys?: KeyBindingLookup;
}

async function recordsPlugin(app: FastifyInstance, options: RecordsPluginOptions): Promise<void> {
  const config = loadRecordsConfig(options.env ?? process.env);
  let store = options.store;
  if (store !== undefined && options.closeStore === true) {
    const given = store;
    app.addHook('onClose', async () => given.close());
  }
  if (store === undefined) {
    const opened = await openRecordStore(config, (error) =>
      app.log.warn({ err: error }, 'records store: idle PostgreSQL connection failed'),
    );
    store = opened;
    app.addHook('onClose', async () => opened.close());
  }
  const live = store;
  if (typeof app.addReadinessCheck === 'function') app.addReadinessCheck('records-store', () => live.ping());
  const profile = options.profile ?? app.protocolProfile ?? DEFAULT_PROFILE;
  if (config.RECORDS_WRITE_POLICY === 'open') {
    app.log.warn(
      'RECORDS_WRITE_POLICY=open: anyone can write /v2 records for any agent; use only for development',
    );
  }
  const operatorTokens =
    config.OPERATOR_TOKEN === undefined || config.OPERATOR_TOKEN.trim() === ''
      ? []
      : parseTokenList(config.OPERATOR_TOKEN);
  const authorizer = createWriteAuthorizer({
    policy: config.RECORDS_WRITE_POLICY,
    profile,
    backend: selectCryptoBackend(),
    keys: options.keys ?? storeKeyLookup(store),
    operatorTokens,
  });
  await app.register(v2ResponseHeaders);
  await app.register(recordRoutes, {
    store,
    profile,
    rateLimitPerMinute: options.rateLimitPerMinute ?? config.V2_RATE_LIMIT_PER_MINUTE,
    authorizer,
  });
  await app.register(keyDirectoryRoutes, { store });
  // POST /verify (routes/verify.ts) calls this after each fresh verdict: the directory learns new keys.
  if (!app.hasDecorator('bundleVerified')) app.decorate('bundleVerified', keyBindingFeeder(store, app.log));
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by the records plugin: feeds the key directory from verified V2 bundles (issue 15). */
    bundleVerified?: (event: VerifiedBundleEvent) => void;
  }
}

// Not encapsulated (what fastify-plugin does), so the header hook reaches /v2 paths without a route;
// the routes themselves stay in their own scope (their validator compiler and schemas).
Object.assign(recordsPlugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'proto-v2-records',
});

/** The plugin the verification service registers: `app.register(records, options?)`. */
export const records: FastifyPluginAsync<RecordsPluginOptions> = recordsPlugin;

/**
 * What the verification service's main.ts calls: opens the store the routes need (SQLite under
 * DATA_DIR, or PostgreSQL at DATABASE_URL; STORE_MAX_ENTRIES per kind) and returns the plugin to
 * register, which closes the store when the app closes.
 */
export async function mountRecords(
  config: { readonly DATA_DIR: string; readonly DATABASE_URL?: string | undefined },
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ plugin: FastifyPluginAsync; options: Record<string, unknown> }> {
  const { STORE_MAX_ENTRIES, V2_RATE_LIMIT_PER_MINUTE, RECORDS_WRITE_POLICY } = loadRecordsConfig(env);
  // DATA_DIR and DATABASE_URL as the service validated them; the two record settings from env.
  const store = await openRecordStore({
    DATA_DIR: config.DATA_DIR,
    ...(config.DATABASE_URL === undefined ? {} : { DATABASE_URL: config.DATABASE_URL }),
    STORE_MAX_ENTRIES,
    V2_RATE_LIMIT_PER_MINUTE,
    RECORDS_WRITE_POLICY,
  });
  const options: RecordsPluginOptions = {
    store,
    closeStore: true,
    env,
    rateLimitPerMinute: V2_RATE_LIMIT_PER_MINUTE,
  };
  return { plugin: records as FastifyPluginAsync, options: { ...options } };
}
