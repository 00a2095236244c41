// Test helpers of the /v2 records: an app with the kit's base and the records plugin, example records.
// Used by the *.test.ts files here (docs/architecture.md §6: real SQLite/PostgreSQL/Redis, app.inject or HTTP).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createNativeBackend,
  generateBundleKeys,
  HUMAN_CONFIRMATION,
  PROFILES,
  recordSignatureRule,
  recordSubjects,
  type SigningKey,
  signRecord,
} from '@proto/core';
import { createService, loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from '@proto/service-kit';
import type { Store, StoreDialect, StoreOptions } from '@proto/store';
import { createStoreTarget } from '@proto/store/testing';
import { listenOnPort0 } from '@proto/testing';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { RECORD_ROUTES, TRANSITION_PATH } from './kinds.ts';
import { records } from './plugin.ts';
import { type KeyBindingLookup, MemoryKeyDirectory } from './write-authorization.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../../..');
const OUR_EXAMPLES = join(repoRoot, 'packages/core/test-vectors/schema-examples');
/** Upstream conformance examples (PROTOCOL §11), beside the repository. */
export const UPSTREAM_EXAMPLES = resolve(repoRoot, '../shared/vectors/tests/conformance/examples');

export type Json = Record<string, unknown>;

/** Our schema example of a record kind (integer metrics: valid under D15). */
export function example(kind: string): Json {
  return JSON.parse(readFileSync(join(OUR_EXAMPLES, `${kind}.json`), 'utf8')) as Json;
}

/** The upstream `<kind>_v2.json` example, or undefined when the shared vectors are absent. */
export function upstreamExample(kind: string): Json | undefined {
  try {
    return JSON.parse(readFileSync(join(UPSTREAM_EXAMPLES, `${kind}_v2.json`), 'utf8')) as Json;
  } catch {
    return undefined;
  }
}

export interface RecordsAppOptions {
  /** The store to use; without one the plugin opens its own from `recordsEnv` (and closes it). */
  readonly store?: Store;
  /** Environment the records plugin reads (DATA_DIR, DATABASE_URL, STORE_MAX_ENTRIES, …). */
  readonly recordsEnv?: Record<string, string>;
  /** Environment of the service (TRUST_PROXY, REDIS_URL, …) over quiet test defaults. */
  readonly env?: Record<string, string>;
  /** Default: a high limit, so that tests not about limits never meet it. */
  readonly rateLimitPerMinute?: number;
  /** Rate-limit key prefix; two apps given the same prefix share one budget. Default: unique. */
  readonly rateLimitKeyPrefix?: string;
  readonly docs?: boolean;
  /** The key directory the write policy consults. */
  readonly keys?: KeyBindingLookup;
  /** Listen on 127.0.0.1 (for parallel HTTP requests) and return the URL. */
  readonly listen?: boolean;
}

export interface RecordsApp {
  readonly app: FastifyInstance;
  readonly url: string;
  /** Signs records as a key bound to their subjects (the default `signed` policy); undefined under `open`. */
  readonly signer: TestSigner | undefined;
  close(): Promise<void>;
}

/** The operator token of test apps started by startRecordsApp (administrative writes). */
export const TEST_OPERATOR_TOKEN = 'records-test-operator-token-000000001';

/**
 * One test key pair and the directory the write policy reads: signing a record first binds the key to the
 * record's subjects, as a verified bundle naming them would. The policy itself is the real one.
 */
const testBackend = createNativeBackend();

/** A fresh Ed25519 + ML-DSA-65 key pair (core's builder keys: signRecord's keys, with their public halves). */
function generateTestKeys() {
  const { classical, pq } = generateBundleKeys(testBackend);
  if (pq === undefined) throw new Error('generateBundleKeys gave no ML-DSA-65 key');
  return { classical, pq };
}

/**
 * A key pair bound in `directory` to an agent and its principal, as a verified bundle would bind it: records it
 * signs speak for those two ids only (the attacks of one agent on another's records).
 */
export function bindTestAgent(directory: MemoryKeyDirectory, agentId: string, humanId: string) {
  const keys = generateTestKeys();
  const evidence = `sha256:${'ab'.repeat(32)}`;
  for (const key of [keys.classical, keys.pq]) {
    directory.bind({
      kid: key.kid,
      alg: key.alg,
      publicKey: key.publicKey,
      subjects: [agentId, humanId],
      evidence,
    });
  }
  return {
    sign: (kind: string, record: Json) => signRecord(testBackend, PROFILES.proto, kind, record, keys),
    kid: keys.classical.kid,
  };
}

export class TestSigner {
  readonly directory = new MemoryKeyDirectory();
  readonly #keys: { classical: SigningKey; pq: SigningKey };
  readonly #backend = testBackend;

  constructor() {
    const keys = generateTestKeys();
    this.#keys = keys;
    for (const key of [keys.classical, keys.pq]) this.#publicKeys.set(key.kid, key.publicKey);
  }
  readonly #publicKeys = new Map<string, Uint8Array>();

  get kid(): string {
    return this.#keys.classical.kid;
  }

  /** Same content, same bytes: ML-DSA signatures are randomised, and an idempotent re-post must match. */
  readonly #memo = new Map<string, Json>();

  /** `record` signed by the test key, which is bound to the record's subjects first. */
  sign(kind: string, record: Json): Json {
    const member = recordSignatureRule(kind)?.signatureMember ?? 'composite_sig';
    const { [member]: _old, ...unsigned } = record;
    const memoKey = `${kind}\u0000${jcs(unsigned)}`;
    const known = this.#memo.get(memoKey);
    if (known !== undefined) return structuredClone(known);
    const subjects = recordSubjects(kind, record);
    for (const key of [this.#keys.classical, this.#keys.pq]) {
      this.directory.bind({
        kid: key.kid,
        alg: key.alg,
        publicKey: this.#publicKeys.get(key.kid) as Uint8Array,
        subjects,
        evidence: `sha256:${'5e'.repeat(32)}`,
      });
    }
    const signed = signRecord(this.#backend, PROFILES.proto, kind, record, this.#keys);
    this.#memo.set(memoKey, signed);
    return structuredClone(signed);
  }

  /** Whether `record` is exactly what this signer made (signing again would change its bytes). */
  signedByMe(kind: string, record: Json): boolean {
    const member = recordSignatureRule(kind)?.signatureMember ?? 'composite_sig';
    const { [member]: _sig, ...unsigned } = record;
    const known = this.#memo.get(`${kind}\u0000${jcs(unsigned)}`);
    return known !== undefined && jcs(known) === jcs(record);
  }
}

const signers = new WeakMap<FastifyInstance, TestSigner>();

/** The kit's service (headers, errors, rate-limit store, body limit) with the /v2 records mounted. */
export async function startRecordsApp(options: RecordsAppOptions): Promise<RecordsApp> {
  const config = loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, {
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    // P582: tests read /ready and /metrics right after changing a dependency; the code's 1000 would hide it.
    PROBE_REUSE_MS: '0',
    ...options.env,
  });
  const app = await createService({
    name: 'verification',
    version: 'test',
    config,
    logger: false,
    loadShedding: false,
    docs: options.docs ?? false,
    defaultMetrics: false,
    rateLimit: { keyPrefix: options.rateLimitKeyPrefix ?? `test:${randomUUID()}:` },
  });
  // The default policy (`signed`) unless a test asks otherwise; `post` signs with the test signer.
  const open = options.recordsEnv?.['RECORDS_WRITE_POLICY'] === 'open';
  const signer = open || options.keys !== undefined ? undefined : new TestSigner();
  await app.register(records, {
    ...(options.store === undefined ? {} : { store: options.store }),
    rateLimitPerMinute: options.rateLimitPerMinute ?? 100_000,
    env: { OPERATOR_TOKEN: TEST_OPERATOR_TOKEN, ...options.recordsEnv },
    ...(options.keys === undefined ? {} : { keys: options.keys }),
    ...(signer === undefined ? {} : { keys: signer.directory }),
  });
  if (signer !== undefined) signers.set(app, signer);
  let url = '';
  if (options.listen === true) {
    url = (await listenOnPort0(app)).url;
  } else {
    await app.ready();
  }
  return { app, url, signer, close: () => app.close() };
}

/**
 * startRecordsApp on a fresh store of `dialect` named after `label` (`storeOptions` e.g. a small
 * `maxEntriesPerKind`; `seed` writes into it first); `close` also drops the store.
 */
export async function startRecordsOnFreshStore(
  dialect: StoreDialect,
  label: string,
  options: Omit<RecordsAppOptions, 'store'> & {
    readonly storeOptions?: Partial<StoreOptions>;
    readonly seed?: (store: Store) => Promise<void>;
  } = {},
): Promise<RecordsApp> {
  const { storeOptions, seed, ...appOptions } = options;
  const target = await createStoreTarget(dialect, label);
  try {
    const store = await target.open(storeOptions);
    await seed?.(store);
    const service = await startRecordsApp({ ...appOptions, store });
    return {
      ...service,
      close: async () => {
        await service.close();
        await target.cleanup();
      },
    };
  } catch (error) {
    await target.cleanup();
    throw error;
  }
}

/** The Redis URL the limit tests use, when one is configured. */
export function testRedisUrl(): string | undefined {
  const url = process.env['REDIS_URL'];
  return url === undefined || url === '' ? undefined : url;
}

/**
 * POSTs `body`. On an app with a test signer (the `signed` default) a record body is first signed by a key
 * bound to its subjects, and a kind that names no subject is written with the operator token (the two ways
 * the policy admits). Bodies that cannot be signed (not canonical JSON, not an object) go as they are.
 */
export async function post(
  app: FastifyInstance,
  url: string,
  body: unknown,
): Promise<LightMyRequestResponse> {
  const signer = signers.get(app);
  const prepared = signer === undefined ? { body } : signedForRoute(signer, url, body);
  return postAsIs(app, url, prepared.body, prepared.token);
}

/** POSTs `body` exactly as given (no test signer), with the bearer `token` when one is given. */
export function postAsIs(
  app: FastifyInstance,
  url: string,
  body: unknown,
  token?: string,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    payload: body as Json,
    ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
  });
}

/** What `post` would send for `record` to `url` on `service` (the signed record; unchanged under `open`). */
export function sentRecord(service: RecordsApp, url: string, record: Json): Json {
  return service.signer === undefined ? record : (signedForRoute(service.signer, url, record).body as Json);
}

/** The body `post` sends to `url` under the signed policy (see `post`). */
export function signedForRoute(
  signer: TestSigner,
  url: string,
  body: unknown,
): { body: unknown; token?: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { body };
  const path = url.split('?')[0];
  if (path === TRANSITION_PATH) return { body: trySign(signer, 'lifecycle_transition', body as Json) };
  const route = RECORD_ROUTES.find((r) => r.path === path);
  if (route === undefined) return { body };
  const keys = Object.keys(body);
  const wrapper = keys.length === 1 && route.wrapperKeys.includes(keys[0] as string) ? keys[0] : undefined;
  const record = (wrapper === undefined ? body : (body as Json)[wrapper]) as Json;
  if (typeof record !== 'object' || record === null) return { body };
  // One test key is bound to every subject it signs for, so it is a party to every dispute: a resolution it signed
  // is refused (P203), and these tests store resolutions administratively. A signed dispute names a respondent
  // known to the service's store (P208), which this key directory does not feed: disputes are administrative too
  // (the signed ones: test/hostile/records-dispute-respondent.test.ts, records-arbitration.test.ts).
  if (
    recordSubjects(route.kind, record).length === 0 ||
    route.kind === 'arbitration_resolution' ||
    route.kind === 'dispute_record'
  ) {
    return { body, token: TEST_OPERATOR_TOKEN };
  }
  const signed = trySign(signer, route.kind, withSignedConsent(signer, route.kind, record));
  return { body: wrapper === undefined ? signed : { [wrapper]: signed } };
}

/** P497: a succession record's `human_consent` signed by the test key too (bound to its human), as its human would. */
function withSignedConsent(signer: TestSigner, kind: string, record: Json): Json {
  const consent = record['human_consent'];
  if (kind !== 'succession_record' || typeof consent !== 'object' || consent === null) return record;
  if (signer.signedByMe(kind, record)) return record;
  return { ...record, human_consent: trySign(signer, HUMAN_CONFIRMATION, consent as Json) };
}

function trySign(signer: TestSigner, kind: string, record: Json): Json {
  try {
    if (signer.signedByMe(kind, record)) return record;
    return signer.sign(kind, record);
  } catch {
    return record;
  }
}

export async function get(app: FastifyInstance, url: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url });
}

export const bodyOf = (response: LightMyRequestResponse): Json => response.json() as Json;

export const errorOf = (response: LightMyRequestResponse) =>
  (response.json() as { error: { code: string; message: string; retryable: boolean; details?: unknown } })
    .error;

// Canonical JSON written independently of core, and its `sha256:` hash (@proto/testing).
export { jcs, jcsSha256 as sha256Of } from '@proto/testing';

import { jcs } from '@proto/testing';

/** A copy of `record` with some members replaced. */
export const withFields = (record: Json, fields: Json): Json => ({ ...structuredClone(record), ...fields });

/**
 * `record`, and a decommissioning record dated now: it is its agent's move at its signed time (P238), after the
 * moves these tests make now, where the examples' dates lie before them.
 */
export const dateDecommissioningNow = (kind: string, record: Json): Json =>
  kind === 'decommissioning_record' ? withFields(record, { timestamp: new Date().toISOString() }) : record;

/**
 * `record` as the route table's order posts it for one agent: commissioned first, so its vitality report states
 * `commissioned` (a report states its agent's state, P447), then a decommissioning record dated now (P238).
 */
export const inRouteOrder = (kind: string, record: Json): Json =>
  kind === 'vitality_report'
    ? withFields(record, { state: 'commissioned' })
    : dateDecommissioningNow(kind, record);
