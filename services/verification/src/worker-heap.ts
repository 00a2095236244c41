// The verification threads' V8 heap limits: piscina's `resourceLimits` for every thread of the pool
// (pool.ts). A cap on a thread's old generation (VERIFY_WORKER_OLD_GENERATION_MB) makes V8 collect it
// well before its own limit: with nothing pinning buffers any more (P137) a thread's old space otherwise
// grows to ~21 MB of mostly garbage before its first mark-compact. P140, docs/operations.md (Memory).
import type { ResourceLimits } from 'node:worker_threads';
import { ConfigError, loadConfig } from '@proto/service-kit';
import { VERIFICATION_ENV } from './config.ts';

/**
 * Below this a thread's live data (an engine, its schemas and a group of maximum-60 bundles in flight) comes
 * too close to the cap: V8 ends an isolate that cannot get under its limit, and a thread's tasks with it.
 */
export const MIN_WORKER_OLD_GENERATION_MB = 16;

const ENV = { VERIFY_WORKER_OLD_GENERATION_MB: VERIFICATION_ENV.VERIFY_WORKER_OLD_GENERATION_MB };

/**
 * The `resourceLimits` of a verification thread under `env` (validated as at boot; ConfigError naming the
 * variable otherwise): `maxOldGenerationSizeMb` unless the variable is 0. V8 honours it with the image's
 * `--max-semi-space-size` (unlike a thread's young generation, P99).
 */
export function workerResourceLimits(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ResourceLimits {
  const { VERIFY_WORKER_OLD_GENERATION_MB: mb } = loadConfig<{ VERIFY_WORKER_OLD_GENERATION_MB: number }>(
    ENV,
    env,
  );
  if (mb === 0) return {};
  if (mb < MIN_WORKER_OLD_GENERATION_MB) {
    throw new ConfigError(
      `VERIFY_WORKER_OLD_GENERATION_MB must be 0 or at least ${MIN_WORKER_OLD_GENERATION_MB} (got ${mb})`,
      ['VERIFY_WORKER_OLD_GENERATION_MB'],
    );
  }
  return { maxOldGenerationSizeMb: mb };
}
