// Test helpers of the /v2 records: an app with the kit's base and the records plugin, example records.
// Used by the *.test.ts files here (docs/architecture.md §6: real SQLite/PostgreSQL/Redis, app.inject or HTTP).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createService, loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from '@proto/service-kit';
import type { Store } from '@proto/store';
import { listenOnPort0 } from '@proto/testing';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { records } from './plugin.ts';
import type { KeyBindingLookup } from './write-authorization.ts';

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
  close(): Promise<void>;
}

/** The kit's service (headers, errors, rate-limit store, body limit) with the /v2 records mounted. */
export async function startRecordsApp(options: RecordsAppOptions): Promise<RecordsApp> {
  const config = loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, {
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
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
  await app.register(records, {
    ...(options.store === undefined ? {} : { store: options.store }),
    rateLimitPerMinute: options.rateLimitPerMinute ?? 100_000,
    // Tests not about authorship post unsigned records: `open` unless a test asks otherwise.
    env: { RECORDS_WRITE_POLICY: 'open', ...options.recordsEnv },
    ...(options.keys === undefined ? {} : { keys: options.keys }),
  });
  let url = '';
  if (options.listen === true) {
    url = (await listenOnPort0(app)).url;
  } else {
    await app.ready();
  }
  return { app, url, close: () => app.close() };
}

/** The Redis URL the limit tests use, when one is configured. */
export function testRedisUrl(): string | undefined {
  const url = process.env['REDIS_URL'];
  return url === undefined || url === '' ? undefined : url;
}

export async function post(
  app: FastifyInstance,
  url: string,
  body: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url, payload: body as Json });
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

/** A copy of `record` with some members replaced. */
export const withFields = (record: Json, fields: Json): Json => ({ ...structuredClone(record), ...fields });
