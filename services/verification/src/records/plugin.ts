// The /v2 records as mounted on the verification service: opens the durable store the validated configuration
// names, adds the /v2 headers and the routes. Implements docs/architecture.md §4 (durable stores), D17 (limits)
// and issue 15 (signed, authorised writes; the key directory).
import { DEFAULT_PROFILE, type ProtocolProfile, selectCryptoBackend } from '@proto/core';
import { type EnvProperties, loadConfig, parseTokenList, SHARED_ENV_PROPERTIES } from '@proto/service-kit';
import { openStore, type Store } from '@proto/store';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { RetiredKeyLookup } from '../retired-keys.ts';
import { RetiredKidFilter } from '../retired-kid-filter.ts';
import { storePrincipalLookup } from './agent-principal.ts';
import { checkPanelQuorum, parseArbitrators, storeDisputePartiesLookup } from './arbitration-panel.ts';
import { DEFAULT_DISPUTE_HOLD_MAX_AGE_SECONDS } from './dispute-holds.ts';
import { RECORD_SETTINGS_ENV } from './env.ts';
import { v2ResponseHeaders } from './headers.ts';
import {
  DEFAULT_REAPPLY_AFTER_MS,
  type KeyDirectoryFeed,
  keyBindingFeeder,
  storeKeyLookup,
} from './key-binding-feeder.ts';
import { startKeyDirectoryPruner } from './key-directory-pruner.ts';
import { keyDirectoryRoutes } from './keys-route.ts';
import { type RevocationGate, revocationGate } from './revocation-gate.ts';
import { recordRoutes } from './routes.ts';
import { createWriteAuthorizer, type KeyBindingLookup, type WritePolicy } from './write-authorization.ts';

/** Variables of the /v2 records (validated at boot; DATA_DIR and DATABASE_URL are the kit's shared ones). */
export const RECORDS_ENV = {
  DATA_DIR: SHARED_ENV_PROPERTIES.DATA_DIR,
  DATABASE_URL: SHARED_ENV_PROPERTIES.DATABASE_URL,
  ...RECORD_SETTINGS_ENV,
} as const satisfies EnvProperties;

export interface RecordsConfig {
  readonly DATA_DIR: string;
  readonly DATABASE_URL?: string;
  readonly STORE_MAX_ENTRIES: number;
  readonly V2_RATE_LIMIT_PER_MINUTE: number;
  readonly RECORDS_WRITE_POLICY: WritePolicy;
  readonly OPERATOR_TOKEN?: string;
  readonly DATABASE_SCHEMA?: string;
  readonly KEY_DIRECTORY_PRUNE_AFTER_SECONDS: number;
  readonly KEY_DIRECTORY_PRUNE_INTERVAL_SECONDS: number;
  readonly RECORDS_ARBITRATORS?: string;
  readonly RECORDS_PANEL_QUORUM?: number;
  readonly RECORDS_DISPUTE_HOLDS_PER_FILER?: number;
  readonly RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS?: number;
  readonly RETIRED_KEY_WARNINGS?: boolean;
  readonly RETIRED_KEY_REFRESH_SECONDS?: number;
  readonly RETIRED_KID_FILTER_BITS_LOG2?: number;
}

/** Validates an explicit variable map (tests, embedding); the service passes its own validated config instead. */
export function loadRecordsConfig(env: Readonly<Record<string, string | undefined>>): RecordsConfig {
  return loadConfig<RecordsConfig>(RECORDS_ENV, env);
}

/** SQLite file `<DATA_DIR>/verification.sqlite`, or PostgreSQL at DATABASE_URL. */
export function openRecordStore(config: RecordsConfig, onPoolError?: (error: Error) => void): Promise<Store> {
  return openStore({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    name: 'verification',
    maxEntriesPerKind: config.STORE_MAX_ENTRIES,
    ...(config.DATABASE_SCHEMA === undefined ? {} : { pgSchema: config.DATABASE_SCHEMA }),
    ...(onPoolError === undefined ? {} : { onPoolError }),
  });
}

export interface RecordsPluginOptions {
  /** Use this store. Default: open one from the environment, closed with the app. */
  readonly store?: Store;
  /** Close `store` when the app closes (default false: its opener closes it). */
  readonly closeStore?: boolean;
  /** The validated settings; default: `env` validated, or every default. */
  readonly config?: RecordsConfig;
  /** Variables to validate when `config` is not given (never process.env: the service validates that at boot). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Overrides V2_RATE_LIMIT_PER_MINUTE. */
  readonly rateLimitPerMinute?: number;
  readonly profile?: ProtocolProfile;
  /** Whose keys are whose (issue 15 item 1). Default: an empty in-memory directory. */
  readonly keys?: KeyBindingLookup;
  /**
   * Whether a signer is revoked (P43). Default: the verification app's own revocation checker and
   * REVOCATION_SOURCES (app.externalChecks), when the app has one; none when mounted without it.
   */
  readonly revocation?: RevocationGate;
  /** The jurisdictions of REVOCATION_SOURCES (mountRecords passes the service's). */
  readonly revocationJurisdictions?: readonly string[];
  /**
   * The maximum key age the key directory applies at every look-up (P230). Default: the verification app's
   * verifier's (`app.maxKeyAgeDays`: MAX_KEY_AGE_DAYS or the policy's), none when mounted without it.
   */
  readonly maxKeyAgeDays?: number;
  /**
   * P377: record signatures must carry their ML-DSA half. Default: the verification app's floor
   * (`app.requirePqSignatures`: VERIFIER_MODE hybrid_required or pq_only), false when mounted without it.
   */
  readonly requirePq?: boolean;
}

async function recordsPlugin(app: FastifyInstance, options: RecordsPluginOptions): Promise<void> {
  const config = options.config ?? loadRecordsConfig(options.env ?? {});
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
  const maxKeyAgeDays = options.maxKeyAgeDays ?? app.maxKeyAgeDays;
  const operatorTokens =
    config.OPERATOR_TOKEN === undefined || config.OPERATOR_TOKEN.trim() === ''
      ? []
      : parseTokenList(config.OPERATOR_TOKEN);
  const appointedArbitrators = parseArbitrators(config.RECORDS_ARBITRATORS);
  const panelQuorum = checkPanelQuorum(config.RECORDS_PANEL_QUORUM ?? 1, appointedArbitrators);
  const authorizer = createWriteAuthorizer({
    policy: config.RECORDS_WRITE_POLICY,
    profile,
    backend: selectCryptoBackend(),
    keys: options.keys ?? storeKeyLookup(store, undefined, maxKeyAgeDays),
    operatorTokens,
    revocation: options.revocation ?? appRevocationGate(app, options.revocationJurisdictions ?? [], profile),
    principalOf: storePrincipalLookup(store),
    disputePartiesOf: storeDisputePartiesLookup(store, storePrincipalLookup(store)),
    appointedArbitrators,
    panelQuorum,
    requirePq: options.requirePq ?? app.requirePqSignatures ?? false,
    agentHasLiveKeys: (agentId) => store.keys.hasLivePassportKeys(agentId),
    agentKnown: async (agentId) =>
      (await store.lifecycle.get(agentId)) !== undefined || (await store.keys.hasLivePassportKeys(agentId)),
  });
  await app.register(v2ResponseHeaders);
  await app.register(recordRoutes, {
    store,
    profile,
    rateLimitPerMinute: options.rateLimitPerMinute ?? config.V2_RATE_LIMIT_PER_MINUTE,
    authorizer,
    panelQuorum,
    ...(config.RECORDS_DISPUTE_HOLDS_PER_FILER === undefined
      ? {}
      : { disputeHoldsPerFiler: config.RECORDS_DISPUTE_HOLDS_PER_FILER }),
    ...(config.RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS === undefined
      ? {}
      : { disputeHoldMaxAgeSeconds: config.RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS }),
  });
  await app.register(keyDirectoryRoutes, { store, maxKeyAgeDays });
  const pruneAfterMs = config.KEY_DIRECTORY_PRUNE_AFTER_SECONDS * 1000;
  // POST /verify (routes/verify.ts) calls this after each fresh verdict: the directory learns new keys. A passport
  // in use is applied again well within the prune age, so its bindings stay proven (P174).
  const reapplyAfterMs =
    pruneAfterMs > 0 ? Math.min(DEFAULT_REAPPLY_AFTER_MS, pruneAfterMs / 2) : DEFAULT_REAPPLY_AFTER_MS;
  // POST /verify asks this whether a verified bundle's signing keys were retired since (P282). P410: only for a
  // bundle one of whose signing kids is in the filter of retired kids, which is read at start, every
  // RETIRED_KEY_REFRESH_SECONDS, and after each retirement this process writes; any other keeps the worker-written
  // answer and asks the store nothing. Off (RETIRED_KEY_WARNINGS=false), no filter and no look-up (P370).
  const warnRetired = config.RETIRED_KEY_WARNINGS !== false && !app.hasDecorator('retiredSigningKeys');
  const retiredKids = warnRetired ? await startRetiredKidFilter(app, store, config) : undefined;
  if (!app.hasDecorator('bundleVerified')) {
    const onRetired =
      retiredKids === undefined
        ? undefined
        : (kids: readonly string[]) => {
            for (const kid of kids) retiredKids.add(kid);
          };
    app.decorate('bundleVerified', keyBindingFeeder(store, app.log, undefined, reapplyAfterMs, onRetired));
  }
  if (retiredKids !== undefined) {
    const lookup = Object.assign(
      (kids: readonly string[], subjects: readonly string[]) => store.keys.retiredBindings(kids, subjects),
      { filter: retiredKids.shared },
    );
    app.decorate('retiredSigningKeys', lookup);
  }
  if (options.keys === undefined) installKeyDirectoryPruner(app, store, config, pruneAfterMs);
}

/** The filter of retired kids (P410), read in full now and refreshed for as long as the app runs. */
async function startRetiredKidFilter(
  app: FastifyInstance,
  store: Store,
  config: RecordsConfig,
): Promise<RetiredKidFilter> {
  const filter = new RetiredKidFilter(store, config.RETIRED_KID_FILTER_BITS_LOG2);
  const refresh = () =>
    filter.refresh().catch((error: unknown) => {
      app.log.warn({ err: error }, 'the key directory could not be read for retired signing keys');
    });
  await refresh();
  const timer = setInterval(refresh, (config.RETIRED_KEY_REFRESH_SECONDS ?? 10) * 1000);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  // P471: not ready until the filter holds every retirement once (a store down at start); each probe meanwhile tries
  // again. Unfilled, the filter has every bit set: a bundle that reaches the service anyway gets the exact look-up.
  if (typeof app.addReadinessCheck === 'function') {
    app.addReadinessCheck('retired-kids', async () => {
      if (!filter.filled) await filter.refresh();
      return filter.filled;
    });
  }
  const metrics = app.serviceMetrics as FastifyInstance['serviceMetrics'] | undefined;
  metrics?.gauge(
    'retired_kid_filter_fill_ratio',
    'Share of the bits set in the filter of retired kids (P410, P470): a bundle by a kid never retired is looked up in the store with about this to the 4th power chance; 1 until the first fill',
    [],
    (g) => {
      g.set(filter.fillRatio());
    },
  );
  return filter;
}

/** Prunes and counts the store's key directory for as long as the app runs (P174). */
function installKeyDirectoryPruner(
  app: FastifyInstance,
  store: Store,
  config: RecordsConfig,
  pruneAfterMs: number,
): void {
  const pruner = startKeyDirectoryPruner({
    store,
    pruneAfterMs,
    disputeHoldMaxAgeMs:
      (config.RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS ?? DEFAULT_DISPUTE_HOLD_MAX_AGE_SECONDS) * 1000,
    intervalMs: config.KEY_DIRECTORY_PRUNE_INTERVAL_SECONDS * 1000,
    log: app.log,
  });
  // Registered after the store's own onClose hook, so it runs before it (Fastify runs them last-in first-out): a
  // run in flight ends at its current batch before the store closes.
  app.addHook('onClose', () => pruner.stop());
  const metrics = app.serviceMetrics as FastifyInstance['serviceMetrics'] | undefined;
  if (metrics === undefined) return;
  // One of the two sizes, by whether pruning is on: a count read after each prune run, or an estimate (P185).
  if (pruneAfterMs > 0) {
    metrics.gauge(
      'key_directory_bindings',
      'Key bindings in the key directory, retired ones included (counted after each prune run)',
      [],
      (g) => {
        if (pruner.size !== undefined) g.set(pruner.size);
      },
    );
  } else {
    metrics.gauge(
      'key_directory_bindings_estimate',
      'Key bindings in the key directory, estimated without reading it (pruning off): PostgreSQL pg_class.reltuples, -1 until analysed; SQLite the largest rowid',
      [],
      (g) => {
        if (pruner.estimate !== undefined) g.set(pruner.estimate);
      },
    );
  }
  metrics.counter(
    'key_directory_pruned_total',
    'Idle key bindings this process pruned (KEY_DIRECTORY_PRUNE_AFTER_SECONDS)',
    [],
    (c) => {
      c.reset();
      c.inc(pruner.pruned);
    },
  );
}

/** The checker POST /verify uses, over every configured source (see revocation-gate.ts). */
function appRevocationGate(
  app: FastifyInstance,
  jurisdictions: readonly string[],
  profile: ProtocolProfile,
): RevocationGate | undefined {
  // Undefined when the records are mounted without the verification app (tests, embedding).
  const checks = app.externalChecks as FastifyInstance['externalChecks'] | undefined;
  return revocationGate(checks?.revocation, jurisdictions, profile);
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by the records plugin: feeds the key directory from verified V2 bundles (issue 15). */
    bundleVerified?: KeyDirectoryFeed;
    /** Set by the records plugin: the key directory's retired bindings of some kids to some subjects (P282). */
    retiredSigningKeys?: RetiredKeyLookup;
  }
}

/**
 * The plugin the verification service registers: `app.register(records, options?)`. Not encapsulated, so the
 * header hook reaches /v2 paths without a route; the routes stay in their own scope (validator, schemas).
 */
export const records: FastifyPluginAsync<RecordsPluginOptions> = fp(recordsPlugin, {
  name: 'proto-v2-records',
  fastify: '5.x',
});

/**
 * What the verification service's main.ts calls: opens the store the routes need (SQLite under
 * DATA_DIR, or PostgreSQL at DATABASE_URL; STORE_MAX_ENTRIES per kind) and returns the plugin to
 * register, which closes the store when the app closes.
 */
export async function mountRecords(
  config: RecordsConfig & { readonly REVOCATION_SOURCES?: Readonly<Record<string, unknown>> },
): Promise<{ plugin: FastifyPluginAsync; options: Record<string, unknown> }> {
  const settings: RecordsConfig = {
    DATA_DIR: config.DATA_DIR,
    ...(config.DATABASE_URL === undefined ? {} : { DATABASE_URL: config.DATABASE_URL }),
    STORE_MAX_ENTRIES: config.STORE_MAX_ENTRIES,
    V2_RATE_LIMIT_PER_MINUTE: config.V2_RATE_LIMIT_PER_MINUTE,
    RECORDS_WRITE_POLICY: config.RECORDS_WRITE_POLICY,
    KEY_DIRECTORY_PRUNE_AFTER_SECONDS: config.KEY_DIRECTORY_PRUNE_AFTER_SECONDS,
    KEY_DIRECTORY_PRUNE_INTERVAL_SECONDS: config.KEY_DIRECTORY_PRUNE_INTERVAL_SECONDS,
    ...(config.OPERATOR_TOKEN === undefined ? {} : { OPERATOR_TOKEN: config.OPERATOR_TOKEN }),
    ...(config.DATABASE_SCHEMA === undefined ? {} : { DATABASE_SCHEMA: config.DATABASE_SCHEMA }),
    ...(config.RECORDS_ARBITRATORS === undefined ? {} : { RECORDS_ARBITRATORS: config.RECORDS_ARBITRATORS }),
    ...(config.RECORDS_PANEL_QUORUM === undefined
      ? {}
      : { RECORDS_PANEL_QUORUM: config.RECORDS_PANEL_QUORUM }),
    ...(config.RECORDS_DISPUTE_HOLDS_PER_FILER === undefined
      ? {}
      : { RECORDS_DISPUTE_HOLDS_PER_FILER: config.RECORDS_DISPUTE_HOLDS_PER_FILER }),
    ...(config.RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS === undefined
      ? {}
      : { RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS: config.RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS }),
    ...(config.RETIRED_KEY_WARNINGS === undefined
      ? {}
      : { RETIRED_KEY_WARNINGS: config.RETIRED_KEY_WARNINGS }),
    ...(config.RETIRED_KEY_REFRESH_SECONDS === undefined
      ? {}
      : { RETIRED_KEY_REFRESH_SECONDS: config.RETIRED_KEY_REFRESH_SECONDS }),
    ...(config.RETIRED_KID_FILTER_BITS_LOG2 === undefined
      ? {}
      : { RETIRED_KID_FILTER_BITS_LOG2: config.RETIRED_KID_FILTER_BITS_LOG2 }),
  };
  const store = await openRecordStore(settings);
  const options: RecordsPluginOptions = {
    store,
    closeStore: true,
    config: settings,
    revocationJurisdictions: Object.keys(config.REVOCATION_SOURCES ?? {}),
  };
  return { plugin: records as FastifyPluginAsync, options: { ...options } };
}
