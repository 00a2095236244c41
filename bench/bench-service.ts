// The verification service as `pnpm bench` runs it (bench/launch-service.ts): the image's Node options,
// cache and rate limit off, ready when /ready answers. Issue 14.
import type { ChildProcess } from 'node:child_process';
import {
  BACKEND,
  CPU_PROF_DIR,
  dataDirOf,
  LOG_LEVEL,
  MAIN,
  MODE,
  WARMUP_S,
  WORKERS,
} from './bench-settings.ts';
import { launchService, stopChild, warmUpFor } from './launch-service.ts';

export const cpuProfArgs = () => (CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []);

/** The service on a port free at the time (the launcher picks it): its process and address. */
export async function startService(
  entry = MAIN,
  workers = WORKERS,
  logLevel = LOG_LEVEL,
  env: Readonly<Record<string, string>> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const { child, url } = await launchService({
    entry,
    nodeFlags: cpuProfArgs(),
    // The records' store (key directory) of this run and this build only: an older build
    // (BENCH_COMPARE_ENTRY) refuses a store that a newer one has migrated.
    dataDir: dataDirOf(entry),
    name: 'the verification service',
    env: {
      LOG_LEVEL: logLevel,
      ...(workers === undefined ? {} : { VERIFY_WORKERS: workers }),
      VERIFY_QUEUE_MAX: '4096',
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      VERIFIER_MODE: MODE,
      CRYPTO_BACKEND: BACKEND,
      ...env,
    },
  });
  return { child, url };
}

export const stopService = stopChild;

/** Every bundle the service judged since it started (proto_bundles_verified_total, all labels). */
export async function bundlesJudged(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(/^proto_bundles_verified_total\{[^}]*\} (\S+)$/gm))
    total += Number(match[1]);
  return total;
}

/**
 * The table's discarded warm-up (launch-service.ts, warmUpFor): BENCH_WARMUP_S seconds of `jsonBody`, or
 * `seconds` (a later bundle's, BENCH_BUNDLE_WARMUP_S).
 */
export const warmUp = (
  url: string,
  jsonBody: string,
  connections: number,
  seconds = WARMUP_S,
): Promise<void> => warmUpFor(seconds, url, jsonBody, connections);
