// Test support: anchor-service configuration and app instances on a test store, request helpers, hashes.
// Used by the service tests (SPEC.md "POST /anchor", DECISIONS D19, D22).
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import { type AnchorServiceOptions, buildAnchorService } from '../app.ts';
import { type AnchorConfig, loadAnchorConfig } from '../config.ts';

export const OPERATOR = 'operator-token-for-tests-0123456789';

/** `sha256:` + SHA-256 of a text: a stand-in bundle hash. */
export function hashOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/**
 * The service's configuration for a test: `env` over these defaults. Load shedding is off
 * (MAX_EVENT_LOOP_DELAY_MS=0): on a busy test machine the event loop lags past its 1 s default and the service
 * answered 503 to a test's request or to the log's receipt poll, which then waited out its backoff; a test of
 * shedding names its own value.
 */
export function testConfig(env: Record<string, string>): AnchorConfig {
  return loadAnchorConfig({
    LOG_LEVEL: 'silent',
    OPERATOR_TOKEN: OPERATOR,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'anchor-test-')),
    ANCHOR_POLL_INTERVAL_MS: '100',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    // P582: tests read /ready and /metrics right after changing a dependency; the code's 1000 would hide it.
    PROBE_REUSE_MS: '0',
    ...env,
  });
}

export async function testApp(
  env: Record<string, string>,
  store: Store,
  extra: Partial<AnchorServiceOptions> = {},
): Promise<FastifyInstance> {
  const app = await buildAnchorService({ config: testConfig(env), store, startWorker: false, ...extra });
  await app.ready();
  return app;
}

export async function postAnchor(app: FastifyInstance, bundleHash: string, chain: string, token = OPERATOR) {
  return app.inject({
    method: 'POST',
    url: '/anchor',
    headers: { authorization: `Bearer ${token}` },
    payload: { bundle_hash: bundleHash, chain },
  });
}

export async function getReceipt(app: FastifyInstance, bundleHash: string): Promise<Record<string, unknown>> {
  const res = await app.inject({ method: 'GET', url: `/anchor/${bundleHash}` });
  if (res.statusCode !== 200) throw new Error(`GET /anchor/${bundleHash}: ${res.statusCode} ${res.body}`);
  return (res.json() as { anchor_receipt: Record<string, unknown> }).anchor_receipt;
}
