// Test support: the RFC 9162 reference (from @proto/testing) over leaf inputs, bundle hashes,
// configuration and app builders for the log's tests. DECISIONS D18; RFC 9162 §2.1.1–2.1.4.
import { createHash } from 'node:crypto';
import type { StoreOptions } from '@proto/store';
import {
  referenceConsistency,
  referenceLeafHashes,
  referencePath,
  referenceRoot,
  type TempDir,
  tempDir,
} from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { buildTransparencyLog } from './app.ts';
import { loadTransparencyLogConfig, type TransparencyLogConfig } from './config.ts';

// The RFC 9162 reference of @proto/testing, over leaf *inputs* as the log stores them.

/** MTH(D[0:n]) (§2.1.1). */
export function naiveRoot(inputs: readonly Uint8Array[], n = inputs.length): Uint8Array {
  return referenceRoot(referenceLeafHashes(inputs), n);
}

/** PATH(m, D[0:n]) (§2.1.3.1). */
export function naiveInclusion(m: number, inputs: readonly Uint8Array[], n = inputs.length): Uint8Array[] {
  return referencePath(m, referenceLeafHashes(inputs), n);
}

/** PROOF(m, D[0:n]) (§2.1.4.1). */
export function naiveConsistency(m: number, inputs: readonly Uint8Array[], n = inputs.length): Uint8Array[] {
  return referenceConsistency(m, referenceLeafHashes(inputs), n);
}

/** A distinct, deterministic `sha256:<hex>` per number (and tag), and its 32 raw bytes. */
export function bundleHash(i: number, tag = 't'): string {
  return `sha256:${createHash('sha256').update(`${tag}:${i}`).digest('hex')}`;
}

export function digestOf(hash: string): Uint8Array {
  return new Uint8Array(Buffer.from(hash.slice('sha256:'.length), 'hex'));
}

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** A temporary DATA_DIR, removed by the returned function. */
export function tempDataDir(label: string): Promise<TempDir> {
  return tempDir(`tlog-${label}`);
}

/** The operator token test logs are configured with (POST /add needs it). */
export const TEST_OPERATOR_TOKEN = 'tlog-test-operator-token-0123456789';
/** Headers authorising POST /add on a test log. */
export const OPERATOR_AUTH = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` } as const;

/** Configuration for tests: quiet, fast batches, no rate limit, no witness backoff, TEST_OPERATOR_TOKEN; `env` overrides. */
export function testConfig(dataDir: string, env: Record<string, string> = {}): TransparencyLogConfig {
  return loadTransparencyLogConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    BATCH_WAIT_MS: '2',
    ADD_RATE_LIMIT_PER_MINUTE: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    // P582: tests read /ready and /metrics right after changing a dependency; the code's 1000 would hide it.
    PROBE_REUSE_MS: '0',
    OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    // Tests tick the checkpointer by hand and expect a witness to be asked at each tick: no backoff (P391) unless the
    // test sets one.
    LOG_WITNESS_RETRY_MAX_MS: '0',
    ...env,
  });
}

export async function buildTestLog(
  dataDir: string,
  env: Record<string, string> = {},
  store: Partial<StoreOptions> = {},
  extra: { timers?: boolean; fetch?: typeof fetch; logLines?: string[]; clock?: () => Date } = {},
): Promise<FastifyInstance> {
  const { logLines, ...rest } = extra;
  // With `logLines`, the log's lines (JSON, at env's LOG_LEVEL) are kept there for the test to read.
  const logger =
    logLines === undefined ? false : { stream: { write: (line: string) => logLines.push(line) } };
  return buildTransparencyLog({ config: testConfig(dataDir, env), store, logger, ...rest });
}
