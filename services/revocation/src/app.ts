// The revocation service's Fastify app: the kit's base, the store, signing keys, the list publisher and
// the routes (well-known documents, operator API, attestation). SPEC.md "Revocation service"; D20–D22.
import { installConsole } from '@proto/console';
import {
  createService,
  operatorTokenGuard,
  resolveOperatorTokens,
  type ServiceOptions,
} from '@proto/service-kit';
import { openStore, type RevocationRepository, type Store, type StoreOptions } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import packageJson from '../package.json' with { type: 'json' };
import type { RevocationConfig } from './config.ts';
import { DEFAULT_ISSUER, DEFAULT_JURISDICTION } from './config.ts';
import type { TrustedKey } from './core.ts';
import { isKeyIdForm } from './ids.ts';
import { loadSigningKey, type SigningKey } from './keys.ts';
import { ListPublisher } from './publisher.ts';
import { attestRoutes } from './routes/attest.ts';
import { emergencyRoutes } from './routes/emergency.ts';
import { revocationRoutes } from './routes/revocations.ts';
import { wellKnownRoutes } from './routes/well-known.ts';

export const SERVICE_NAME = 'revocation';
// The released version is the package's, so /health, capabilities and the OpenAPI document never drift from it.
export const SERVICE_VERSION: string = packageJson.version;
export const REVOCATION_KEY_FILE = 'revocation-signing-key';
export const ATTESTATION_KEY_FILE = 'attestation-signing-key';

declare module 'fastify' {
  interface FastifyInstance {
    /** The list publisher (tests and operators' scripts may force a re-issue). */
    revocationPublisher: ListPublisher;
  }
}

export interface BuildRevocationAppOptions {
  readonly config: RevocationConfig;
  readonly logger?: ServiceOptions['logger'];
  /** Overrides of the store options derived from DATABASE_URL / DATA_DIR (tests: a PostgreSQL schema). */
  readonly store?: Partial<StoreOptions>;
  readonly clock?: () => Date;
  /** Start the re-issue timer (default true). */
  readonly timer?: boolean;
}

export async function buildRevocationApp(options: BuildRevocationAppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const clock = options.clock ?? (() => new Date());
  let revocationKey: SigningKey | undefined;
  let attestationKey: SigningKey | undefined;

  const app = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description:
      'Publishes the signed jurisdictional revocation list (D20) and issues jurisdiction attestations (D21). ' +
      'Operator routes need `Authorization: Bearer <OPERATOR_TOKEN>` (D22).',
    config,
    // Only the emergency routes are limited (per IP and per agent); Redis at REDIS_URL when set.
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    health: () => ({
      issuer: config.ISSUER,
      jurisdiction: config.JURISDICTION,
      ...(revocationKey ? { revocation_public_key_b64: revocationKey.publicKeyB64 } : {}),
      ...(attestationKey ? { attestation_key_id: attestationKey.keyId } : {}),
    }),
  });

  if (config.ISSUER === DEFAULT_ISSUER || config.JURISDICTION === DEFAULT_JURISDICTION) {
    app.log.warn(
      { issuer: config.ISSUER, jurisdiction: config.JURISDICTION },
      'ISSUER/JURISDICTION not configured: publishing under development placeholders',
    );
  }
  const tokens = resolveOperatorTokens({
    value: config.OPERATOR_TOKEN,
    dataDir: config.DATA_DIR,
    required: true,
    log: app.log,
  });
  const guard = operatorTokenGuard(tokens ?? []);
  revocationKey = loadSigningKey({
    value: config.REVOCATION_SIGNING_KEY,
    variable: 'REVOCATION_SIGNING_KEY',
    dataDir: config.DATA_DIR,
    fileName: REVOCATION_KEY_FILE,
    log: app.log,
  });
  attestationKey = loadSigningKey({
    value: config.ATTESTATION_SIGNING_KEY,
    variable: 'ATTESTATION_SIGNING_KEY',
    dataDir: config.DATA_DIR,
    fileName: ATTESTATION_KEY_FILE,
    log: app.log,
  });

  let store: Store;
  try {
    store = await openStore({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      name: SERVICE_NAME,
      clock,
      onPoolError: (error) => app.log.warn({ err: error }, 'idle PostgreSQL connection failed'),
      ...options.store,
    });
  } catch (error) {
    await app.close();
    throw error;
  }
  const repository = store.revocation;
  const jurisdiction = config.JURISDICTION;

  const metrics = app.serviceMetrics;
  const listNumber = metrics.gauge(
    'revocation_list_number',
    'list_number of the latest list issued by this process',
  );
  const listEntries = metrics.gauge(
    'revocation_list_entries',
    'Entries of the latest list issued by this process',
  );
  const listResponses = metrics.counter('revocation_list_responses_total', 'Revocation list responses', [
    'status',
  ]);
  const revocations = metrics.counter('revocations_total', 'Agents revoked through this process');
  const emergencyRevocations = metrics.counter(
    'emergency_revocations_total',
    'Agents revoked with their emergency secret through this process',
  );
  const attestations = metrics.counter('attestations_issued_total', 'Attestations issued by this process');
  const nextUpdate = metrics.gauge(
    'revocation_list_next_update_timestamp_seconds',
    'next_update of the current revocation list (Unix seconds): verifiers refuse it after this',
  );
  const issueFailures = metrics.counter(
    'revocation_list_issue_failures_total',
    'Rounds that failed to make sure a current revocation list is issued',
  );

  const keyIdFormTokens = metrics.gauge(
    'revocation_key_id_form_emergency_tokens',
    'Unused emergency tokens registered from a bundle under an agent id of the key id form (before P201), seen at start',
  );

  const publisher = new ListPublisher({
    repository,
    issuer: config.ISSUER,
    jurisdiction,
    key: revocationKey,
    profile: app.protocolProfile,
    validitySeconds: config.LIST_VALIDITY_S,
    clock,
    log: app.log,
    onIssued: (list) => {
      listNumber.set(list.list_number);
      listEntries.set(list.entry_count);
      nextUpdate.set(Date.parse(list.next_update) / 1000);
    },
    onCurrent: (list) => nextUpdate.set(Date.parse(list.next_update) / 1000),
    onFailure: () => issueFailures.inc(),
  });
  app.decorate('revocationPublisher', publisher);

  let attestationKeys: readonly TrustedKey[] = [];
  try {
    await repository.registerKey(jurisdiction, 'revocation', {
      key_id: revocationKey.keyId,
      public_key_b64: revocationKey.publicKeyB64,
    });
    const current = await repository.registerKey(jurisdiction, 'attestation', {
      key_id: attestationKey.keyId,
      public_key_b64: attestationKey.publicKeyB64,
    });
    attestationKeys = [
      {
        key_id: attestationKey.keyId,
        public_key_b64: attestationKey.publicKeyB64,
        valid_from: config.ATTESTATION_KEY_VALID_FROM ?? current.first_used_at,
        valid_until: null,
      },
      ...config.ATTESTATION_PREVIOUS_KEYS.filter((k) => k.public_key_b64 !== attestationKey?.publicKeyB64),
    ];
    await warnOfKeyIdFormTokens(app, repository, jurisdiction, keyIdFormTokens);
    // Serve a current list from the first request on: issue #1, or re-issue a due or outdated one.
    const latest = await publisher.ensureCurrent();
    listNumber.set(latest.list_number);
    listEntries.set(latest.entry_count);
  } catch (error) {
    await store.close();
    await app.close();
    throw error;
  }

  app.addReadinessCheck('store', () => store.ping());
  app.addHook('onClose', async () => {
    publisher.stop();
    await store.close();
  });
  if (options.timer !== false) app.addHook('onReady', async () => publisher.start());

  await app.register(wellKnownRoutes, {
    publisher,
    maxAgeSeconds: config.LIST_MAX_AGE_S,
    clock,
    attestationKeys: () => ({ issuer: config.ISSUER, jurisdiction, keys: attestationKeys }),
    onListResponse: (status) => listResponses.inc({ status: String(status) }),
  });
  await app.register(revocationRoutes, {
    publisher,
    repository,
    jurisdiction,
    guard,
    clock,
    onRevoked: () => revocations.inc(),
  });
  await app.register(emergencyRoutes, {
    publisher,
    repository,
    jurisdiction,
    profile: app.protocolProfile,
    guard,
    clock,
    registration: config.EMERGENCY_REGISTRATION,
    maxPerIp: config.EMERGENCY_MAX_PER_IP,
    maxPerAgent: config.EMERGENCY_MAX_PER_AGENT,
    windowSeconds: config.EMERGENCY_WINDOW_S,
    registrationsPerIp: config.EMERGENCY_REGISTRATIONS_PER_IP,
    verifyThreads: config.EMERGENCY_VERIFY_WORKERS,
    verifyQueueMax: config.EMERGENCY_VERIFY_QUEUE_MAX,
    verifyThreadHeapMb: config.EMERGENCY_VERIFY_THREAD_HEAP_MB,
    onRevoked: () => emergencyRevocations.inc(),
  });
  await app.register(attestRoutes, {
    repository,
    issuer: config.ISSUER,
    jurisdiction,
    key: attestationKey,
    validitySeconds: config.ATTESTATION_VALIDITY_S,
    guard,
    clock,
    onIssued: () => attestations.inc(),
  });
  // Issue 17: the revocation viewer at `/` (the list's signature is checked in the browser).
  const listKey = revocationKey;
  await installConsole(app, {
    page: 'revocation',
    config: () => ({
      list_path: app.protocolProfile.wellKnown.revocations,
      context: `${app.protocolProfile.contextPrefix}Revocation`,
      key_id: listKey.keyId,
      public_key_b64: listKey.publicKeyB64,
    }),
  });
  return app;
}

/**
 * P211: emergency tokens registered from a bundle under an agent id of the key id form, before P201 refused such ids.
 * Their use is refused (the secret holder chose an id that may be another agent's kid); the operator re-registers
 * the ones that are genuine with `PUT /emergency-tokens/:agent_id`. Named in a warning and counted at every start.
 */
async function warnOfKeyIdFormTokens(
  app: FastifyInstance,
  repository: RevocationRepository,
  jurisdiction: string,
  gauge: { set(value: number): void },
): Promise<void> {
  const found = (await repository.emergencyTokensOfKeyIdLength(jurisdiction)).filter(
    (token) => token.source === 'bundle' && isKeyIdForm(token.agent_id),
  );
  const unused = found.filter((token) => token.used_at === null);
  gauge.set(unused.length);
  if (found.length === 0) return;
  app.log.warn(
    {
      unused: unused.map((token) => token.agent_id),
      used: found.filter((token) => token.used_at !== null).map((token) => token.agent_id),
    },
    'emergency tokens registered from a bundle under an agent id of the key id form (before P201): their use is refused until the operator registers them again (PUT /emergency-tokens/:agent_id); used ones put that kid in the list',
  );
}
