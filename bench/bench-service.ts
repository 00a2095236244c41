// The verification service as `pnpm bench` runs it: its own process, the image's Node options, cache and
// rate limit off, ready when /ready answers. Issue 14.
import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
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
import { IMAGE_NODE_OPTIONS } from './image-env.ts';

export const cpuProfArgs = () => (CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []);

export const randomPort = () => 3900 + Math.floor(Math.random() * 90);

export async function startService(
  port: number,
  entry = MAIN,
  workers = WORKERS,
  logLevel = LOG_LEVEL,
  env: Readonly<Record<string, string>> = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...cpuProfArgs(), entry], {
    env: {
      // As the image runs it (docker/Dockerfile; docs/operations.md, Memory), unless the caller says otherwise.
      NODE_OPTIONS: IMAGE_NODE_OPTIONS,
      NODE_COMPILE_CACHE: join(tmpdir(), 'proto-bench-compile-cache'),
      ...process.env,
      // The records' store (key directory) of this run and this build only: an older build
      // (BENCH_COMPARE_ENTRY) refuses a store that a newer one has migrated.
      DATA_DIR: dataDirOf(entry),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: logLevel,
      ...(workers === undefined ? {} : { VERIFY_WORKERS: workers }),
      VERIFY_QUEUE_MAX: '4096',
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      VERIFIER_MODE: MODE,
      CRYPTO_BACKEND: BACKEND,
      ...env,
    },
    // Log lines go nowhere, as to a log shipper that keeps up; writing them is still paid for.
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // A loaded machine can take well over 30 s to start a service (compile cache cold, cores busy).
  const end = Date.now() + 90_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/ready`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error('the verification service did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

export async function stopService(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Every bundle the service judged since it started (proto_bundles_verified_total, all labels). */
export async function bundlesJudged(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(/^proto_bundles_verified_total\{[^}]*\} (\S+)$/gm))
    total += Number(match[1]);
  return total;
}

/**
 * Discarded load before a service's first measured run: its JavaScript runs unoptimised at first and its
 * verification threads start on demand, so a run on a fresh service pays for both (the first row's main thread
 * read 2.07 ms per request against 1.04 ms five rows later, P98; a fresh comparison service, about 1 ms a
 * bundle more than the table's warm one at elevated-10, P114).
 */
export async function warmUp(url: string, jsonBody: string, connections: number): Promise<void> {
  if (WARMUP_S <= 0) return;
  await autocannon({
    url: `${url}/verify`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: jsonBody,
    connections,
    duration: WARMUP_S,
  });
}
