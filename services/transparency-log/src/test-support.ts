// Test support: a naive RFC 9162 reference written straight from the RFC's recursive definitions, bundle hashes,
// configuration and app builders for the log's tests. DECISIONS D18; RFC 9162 §2.1.1–2.1.4.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreOptions } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import { buildTransparencyLog } from './app.ts';
import { loadTransparencyLogConfig, type TransparencyLogConfig } from './config.ts';

const sha256 = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

/**
 * RFC 9162 §2.1 written straight from its recursive definitions (MTH, PATH, SUBPROOF) over leaf
 * *inputs*, with no stored nodes and no iterative shortcuts. MTH of a range is memoised per input
 * list only so that thousands of reference proofs stay cheap; the definitions are unchanged.
 */
const memo = new WeakMap<readonly Uint8Array[], Map<string, Uint8Array>>();

function mth(inputs: readonly Uint8Array[], start: number, end: number): Uint8Array {
  let cache = memo.get(inputs);
  if (cache === undefined) {
    cache = new Map();
    memo.set(inputs, cache);
  }
  const key = `${start}:${end}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let out: Uint8Array;
  if (end - start === 0) out = sha256();
  else if (end - start === 1) out = sha256(Uint8Array.of(0), inputs[start] as Uint8Array);
  else {
    const k = largestPowerOfTwoBelow(end - start);
    out = sha256(Uint8Array.of(1), mth(inputs, start, start + k), mth(inputs, start + k, end));
  }
  cache.set(key, out);
  return out;
}

function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[0:n]) (§2.1.1). */
export function naiveRoot(inputs: readonly Uint8Array[], n = inputs.length): Uint8Array {
  return mth(inputs, 0, n);
}

/** PATH(m, D[0:n]) (§2.1.3.1). */
export function naiveInclusion(m: number, inputs: readonly Uint8Array[], n = inputs.length): Uint8Array[] {
  const path = (index: number, start: number, end: number): Uint8Array[] => {
    if (end - start === 1) return [];
    const k = largestPowerOfTwoBelow(end - start);
    if (index < k) return [...path(index, start, start + k), mth(inputs, start + k, end)];
    return [...path(index - k, start + k, end), mth(inputs, start, start + k)];
  };
  return path(m, 0, n);
}

/** PROOF(m, D[0:n]) = SUBPROOF(m, D[0:n], true) (§2.1.4.1). */
export function naiveConsistency(m: number, inputs: readonly Uint8Array[], n = inputs.length): Uint8Array[] {
  const subproof = (mm: number, start: number, end: number, b: boolean): Uint8Array[] => {
    if (mm === end - start) return b ? [] : [mth(inputs, start, end)];
    const k = largestPowerOfTwoBelow(end - start);
    if (mm <= k) return [...subproof(mm, start, start + k, b), mth(inputs, start + k, end)];
    return [...subproof(mm - k, start + k, end, false), mth(inputs, start, start + k)];
  };
  return m === 0 || m === n ? [] : subproof(m, 0, n, true);
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
export async function tempDataDir(label: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `proto-tlog-${label}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The operator token test logs are configured with (POST /add needs it). */
export const TEST_OPERATOR_TOKEN = 'tlog-test-operator-token-0123456789';
/** Headers authorising POST /add on a test log. */
export const OPERATOR_AUTH = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` } as const;

/** Configuration for tests: quiet, fast batches, no rate limit, TEST_OPERATOR_TOKEN; `env` overrides. */
export function testConfig(dataDir: string, env: Record<string, string> = {}): TransparencyLogConfig {
  return loadTransparencyLogConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    BATCH_WAIT_MS: '2',
    ADD_RATE_LIMIT_PER_MINUTE: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    ...env,
  });
}

export async function buildTestLog(
  dataDir: string,
  env: Record<string, string> = {},
  store: Partial<StoreOptions> = {},
  extra: { timers?: boolean; fetch?: typeof fetch } = {},
): Promise<FastifyInstance> {
  return buildTransparencyLog({ config: testConfig(dataDir, env), store, logger: false, ...extra });
}
