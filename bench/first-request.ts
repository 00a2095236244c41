// The first /verify after a start (or after idle: no thread is kept, P71) against the next one, with where
// the first one's time goes. Each run is a fresh verification service, run as the image runs it
// (NODE_OPTIONS, compile cache): /ready, then two distinct standard-10 bundles one after the other. Then a
// fresh process that loads the worker module in a thread as the pool does and verifies the same two,
// timestamping each step. Runs alternate between the checkouts of BENCH_FIRST_ROOTS (comma-separated,
// default this one) so a before/after shares the machine's state. Usage (under the bench lock):
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

const ROOTS = (process.env['BENCH_FIRST_ROOTS'] ?? fileURLToPath(new URL('..', import.meta.url)))
  .split(',')
  .filter((root) => root.length > 0);
const ROUNDS = Number(process.env['BENCH_FIRST_ROUNDS'] ?? 7);
/** Seconds after /ready before the first request: the start-up's own work (and its GC) is over. */
const SETTLE_MS = Number(process.env['BENCH_FIRST_SETTLE_MS'] ?? 1000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The image's settings over this environment's, for the service and the probe alike. */
const IMAGE_SETTINGS = {
  NODE_OPTIONS: IMAGE_NODE_OPTIONS,
  NODE_COMPILE_CACHE: COMPILE_CACHE,
  LOG_LEVEL: 'warn',
};
const imageEnv = (): NodeJS.ProcessEnv => ({ ...process.env, ...IMAGE_SETTINGS });

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

/** First and second /verify of a fresh service, in ms. */
async function serviceRun(root: string, bodies: readonly string[]): Promise<[number, number]> {
  const service = await launchService({
    entry: serviceMain(root, 'verification'),
    cwd: root,
    name: 'verification',
    env: { ...IMAGE_SETTINGS, VERIFY_RATE_LIMIT_PER_MINUTE: '0' },
  });
  try {
    await sleep(SETTLE_MS);
    return [await timedVerify(service.port, bodies[0]!), await timedVerify(service.port, bodies[1]!)];
  } finally {
    await service.stop();
  }
}

/** Steps of a thread's start and its two verifies, in ms since the thread was asked for. */
function probeRun(root: string, bodiesFile: string): Map<string, number> {
  const out = execFileSync(
    process.execPath,
    [fileURLToPath(new URL('./first-request-probe.ts', import.meta.url)), root, bodiesFile],
    { cwd: root, env: imageEnv(), encoding: 'utf8' },
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

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
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
    `first request: ${ROUNDS} rounds alternating ${ROOTS.length} checkout(s), NODE_OPTIONS=${IMAGE_NODE_OPTIONS}, compile cache ${COMPILE_CACHE}, settle ${SETTLE_MS} ms after /ready`,
  );
  const results = ROOTS.map(() => ({
    first: [] as number[],
    second: [] as number[],
    steps: new Map<string, number[]>(),
  }));
  try {
    // A first start of each writes its compile cache (P36); what is measured is every later start.
    for (const root of ROOTS) {
      await serviceRun(root, bodies);
      probeRun(root, bodiesFile);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, root] of ROOTS.entries()) {
        const [cold, warm] = await serviceRun(root, bodies);
        results[i]!.first.push(cold);
        results[i]!.second.push(warm);
        for (const [step, ms] of probeRun(root, bodiesFile)) {
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
    console.log(`\n${String.fromCharCode(65 + i)} ${root}`);
    console.log(`  service, first /verify   ${spread(r.first)}`);
    console.log(`  service, second /verify  ${spread(r.second)}`);
    console.log('  a thread loading worker.ts, step by step (ms since the previous step):');
    for (const [step, ms] of r.steps) console.log(`    ${step.padEnd(34)} ${spread(ms)}`);
  }
  if (ROOTS.length > 1) {
    const base = median(results[0]!.first);
    for (const [i] of ROOTS.entries()) {
      if (i === 0) continue;
      console.log(
        `first /verify median, ${String.fromCharCode(65 + i)}/A: ${(median(results[i]!.first) / base).toFixed(3)}`,
      );
    }
  }
}

await main();
