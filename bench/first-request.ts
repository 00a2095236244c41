// The first /verify after a start (or after idle: no thread is kept, P71) against the next one, with where
// the first one's time goes. Each run is a fresh verification service, run as the image runs it
// (NODE_OPTIONS, compile cache): /ready, then two distinct standard-10 bundles one after the other. Then a
// fresh process that loads the worker module in a thread as the pool does and verifies the same two,
// timestamping each step. Runs alternate between the checkouts of BENCH_FIRST_ROOTS (comma-separated,
// default this one) so a before/after shares the machine's state. BENCH_FIRST_COMPILE_CACHE (comma-separated,
// one per root, default `image`) says how each root's processes get Node's compile cache: `image` sets
// NODE_COMPILE_CACHE as the image does, `unset` leaves it out as `pnpm start:verification` does (the
// service's own default then applies, P119), `off` sets NODE_DISABLE_COMPILE_CACHE=1. Usage (under the lock):
//   flock /work/notes/bench.lock pnpm exec node bench/first-request.ts   [BENCH_FIRST_ROUNDS=7]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle, selectCryptoBackend } from '@proto/core';
import { IMAGE_NODE_OPTIONS } from './image-env.ts';
import { COMPILE_CACHE, launchService, serviceMain } from './launch-service.ts';
import { median } from './median.ts';

const ROOTS = (process.env['BENCH_FIRST_ROOTS'] ?? fileURLToPath(new URL('..', import.meta.url)))
  .split(',')
  .filter((root) => root.length > 0);
const CACHE_MODES = ['image', 'unset', 'off'] as const;
type CacheMode = (typeof CACHE_MODES)[number];
const cacheModes = (process.env['BENCH_FIRST_COMPILE_CACHE'] ?? '').split(',').map((m) => m.trim());
const CACHE: readonly CacheMode[] = ROOTS.map((_, i) => {
  const mode = cacheModes[i] || 'image';
  if (!(CACHE_MODES as readonly string[]).includes(mode))
    throw new Error(`BENCH_FIRST_COMPILE_CACHE: ${mode} is none of ${CACHE_MODES.join(', ')}`);
  return mode as CacheMode;
});
const ROUNDS = Number(process.env['BENCH_FIRST_ROUNDS'] ?? 7);
/** Seconds after /ready before the first request: the start-up's own work (and its GC) is over. */
const SETTLE_MS = Number(process.env['BENCH_FIRST_SETTLE_MS'] ?? 1000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The image's settings for a cache mode: what the service and the probe get over this environment. */
function imageSettings(mode: CacheMode): Record<string, string> {
  return {
    NODE_OPTIONS: IMAGE_NODE_OPTIONS,
    ...(mode === 'image' ? { NODE_COMPILE_CACHE: COMPILE_CACHE } : {}),
    ...(mode === 'off' ? { NODE_DISABLE_COMPILE_CACHE: '1' } : {}),
    LOG_LEVEL: 'warn',
  };
}
/** Variables the mode leaves out, whatever this environment (or the launcher's default) holds. */
const unsetFor = (mode: CacheMode): string[] =>
  ['NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE'].filter((name) => !(name in imageSettings(mode)));

function imageEnv(mode: CacheMode): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...imageSettings(mode) };
  for (const name of unsetFor(mode)) delete env[name];
  return env;
}

async function timedVerify(port: number, body: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const answer = (await res.json()) as { verified?: boolean };
  const ms = performance.now() - t0;
  if (answer.verified !== true) throw new Error(`a bench bundle was not verified: ${JSON.stringify(answer)}`);
  return ms;
}

/** Start to /ready, first and second /verify of a fresh service, in ms. */
async function serviceRun(
  root: string,
  mode: CacheMode,
  bodies: readonly string[],
): Promise<[number, number, number]> {
  const service = await launchService({
    entry: serviceMain(root, 'verification'),
    cwd: root,
    name: 'verification',
    env: { ...imageSettings(mode), VERIFY_RATE_LIMIT_PER_MINUTE: '0' },
    unset: unsetFor(mode),
  });
  try {
    await sleep(SETTLE_MS);
    return [
      service.readyMs,
      await timedVerify(service.port, bodies[0]!),
      await timedVerify(service.port, bodies[1]!),
    ];
  } finally {
    await service.stop();
  }
}

/** Steps of a thread's start and its two verifies, in ms since the thread was asked for. */
function probeRun(root: string, mode: CacheMode, bodiesFile: string): Map<string, number> {
  const out = execFileSync(
    process.execPath,
    [fileURLToPath(new URL('./first-request-probe.ts', import.meta.url)), root, bodiesFile],
    { cwd: root, env: imageEnv(mode), encoding: 'utf8' },
  );
  const { asked, marks } = JSON.parse(out.trim().split('\n').at(-1)!) as {
    asked: number;
    marks: [string, number][];
  };
  const steps = new Map<string, number>();
  let last = asked;
  for (const [name, at] of marks) {
    steps.set(name, at - last);
    last = at;
  }
  return steps;
}

const spread = (xs: readonly number[]) =>
  `median ${median(xs).toFixed(0).padStart(4)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;

async function main(): Promise<void> {
  const backend = selectCryptoBackend('auto');
  const first = buildSignedBundle({ tier: 'standard', entries: 10, backend });
  const second = buildSignedBundle({ tier: 'standard', entries: 10, backend, keys: first.keys });
  const bodies = [first, second].map((b) => JSON.stringify({ signed_bundle: b.signed_bundle }));
  const scratch = mkdtempSync(join(tmpdir(), 'proto-bench-first-bodies-'));
  const bodiesFile = join(scratch, 'bodies.ndjson');
  writeFileSync(bodiesFile, `${bodies.join('\n')}\n`);
  console.log(
    `first request: ${ROUNDS} rounds alternating ${ROOTS.length} checkout(s), NODE_OPTIONS=${IMAGE_NODE_OPTIONS}, compile cache (image) ${COMPILE_CACHE}, settle ${SETTLE_MS} ms after /ready`,
  );
  const results = ROOTS.map(() => ({
    start: [] as number[],
    first: [] as number[],
    second: [] as number[],
    steps: new Map<string, number[]>(),
  }));
  try {
    // A first start of each writes its compile cache (P36); what is measured is every later start.
    for (const [i, root] of ROOTS.entries()) {
      await serviceRun(root, CACHE[i]!, bodies);
      probeRun(root, CACHE[i]!, bodiesFile);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, root] of ROOTS.entries()) {
        const [startMs, cold, warm] = await serviceRun(root, CACHE[i]!, bodies);
        results[i]!.start.push(startMs);
        results[i]!.first.push(cold);
        results[i]!.second.push(warm);
        for (const [step, ms] of probeRun(root, CACHE[i]!, bodiesFile)) {
          const list = results[i]!.steps.get(step) ?? [];
          list.push(ms);
          results[i]!.steps.set(step, list);
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  for (const [i, root] of ROOTS.entries()) {
    const r = results[i]!;
    console.log(`\n${String.fromCharCode(65 + i)} ${root} (compile cache: ${CACHE[i]})`);
    console.log(`  service, spawn to /ready   ${spread(r.start)}`);
    console.log(`  service, first /verify     ${spread(r.first)}`);
    console.log(`  service, second /verify    ${spread(r.second)}`);
    console.log('  a thread loading worker.ts, step by step (ms since the previous step):');
    for (const [step, ms] of r.steps) console.log(`    ${step.padEnd(34)} ${spread(ms)}`);
  }
  if (ROOTS.length > 1) {
    for (const [i] of ROOTS.entries()) {
      if (i === 0) continue;
      const ratio = (key: 'start' | 'first') =>
        (median(results[i]![key]) / median(results[0]![key])).toFixed(3);
      console.log(
        `${String.fromCharCode(65 + i)}/A medians: first /verify ${ratio('first')}, spawn to /ready ${ratio('start')}`,
      );
    }
  }
}

await main();
