// Memory of the stack (`node bench/memory.ts`, part of `pnpm bench`): RSS of every service idle, then the
// verification service with its cache full (VERIFICATION_CACHE_MAX_ENTRIES distinct verified bundles)
// and under saturation, then idle again once its worker threads have stopped. Issue 14 item 5;
// docs/operations.md, Memory. Each service runs as the image runs it (NODE_OPTIONS, compile cache).
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildSignedBundle, selectCryptoBackend } from '@proto/core';
import autocannon from 'autocannon';
import { IMAGE_NODE_OPTIONS } from './image-env.ts';
import { type LaunchedService, launchService, serviceMain, THIS_CHECKOUT } from './launch-service.ts';
import { percentile } from './median.ts';
import { cpuTimeMs, rssMb, threadCpuTimeMs } from './proc-stats.ts';

/** The checkout whose services are measured (another one's for a before/after comparison). */
const ROOT = process.env['BENCH_MEMORY_ROOT'] ?? THIS_CHECKOUT;
/** Distinct bundles sent to fill the cache (the service's default VERIFICATION_CACHE_MAX_ENTRIES). */
const CACHE_ENTRIES = Number(process.env['BENCH_MEMORY_BUNDLES'] ?? 10_000);
/**
 * Bundles beyond the cache's size: the saturation load cycles through all of them in order, which an LRU
 * of CACHE_ENTRIES cannot hold, so every request misses (the threads stay busy) and the cache stays full.
 */
const EXTRA_BUNDLES = Number(process.env['BENCH_MEMORY_EXTRA'] ?? 1_000);
const LOAD_S = Number(process.env['BENCH_DURATION_S'] ?? 10);
/** Seconds a service is left alone after /ready before its idle RSS is read. */
const SETTLE_S = Number(process.env['BENCH_MEMORY_SETTLE_S'] ?? 6);
const CONNECTIONS = 8;
/** The service's VERIFY_WORKER_IDLE_MS (it inherits this environment): after it, idle threads have stopped. */
const IDLE_MS = Number(process.env['VERIFY_WORKER_IDLE_MS'] ?? 30_000);
const TIER = 'standard';
const ENTRIES = 10;

interface Service extends LaunchedService {
  readonly name: string;
}

/** The services' DATA_DIRs of this run (made once the bundles are ready; removed at the end). */
let dataRoot = '';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(name: string, env: Record<string, string>): Promise<Service> {
  const dataDir = join(dataRoot, name);
  mkdirSync(dataDir, { recursive: true });
  const service = await launchService({
    entry: serviceMain(ROOT, name),
    cwd: ROOT,
    dataDir,
    name,
    env: {
      // Flags for the services only (this process holds every bundle's text and needs its heap).
      ...(process.env['BENCH_MEMORY_NODE_OPTIONS'] === undefined
        ? {}
        : { NODE_OPTIONS: process.env['BENCH_MEMORY_NODE_OPTIONS'] }),
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  return { ...service, name };
}

/** Starts the four services as `pnpm start` wires them (the log first: the anchor service reads its token). */
async function startStack(): Promise<{ services: Service[]; verification: Service }> {
  const services: Service[] = [];
  try {
    const log = await start('transparency-log', {});
    services.push(log);
    services.push(
      await start('anchor', {
        TL_URL: `http://127.0.0.1:${log.port}`,
        TL_TOKEN_FILE: join(dataRoot, 'transparency-log', 'operator-token'),
      }),
    );
    services.push(await start('revocation', { JURISDICTION: 'US' }));
    const verification = await start('verification', {
      DIAGNOSTIC_REPORT_DIR: reportDir(),
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      VERIFY_QUEUE_MAX: '4096',
      VERIFICATION_CACHE_MAX_ENTRIES: String(CACHE_ENTRIES),
    });
    services.push(verification);
    return { services, verification };
  } catch (error) {
    for (const s of services.reverse()) await s.stop();
    throw error;
  }
}

/** Milliseconds until POST /verify of `body` is answered. */
async function timedPost(service: Service, body: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${service.port}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  await res.arrayBuffer();
  return performance.now() - t0;
}

/** A gauge of the service's /metrics (unlabelled unless `name` carries its labels), or NaN. */
async function metric(service: Service, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
  const escaped = name.replace(/[{}"]/g, (c) => `\\${c}`);
  const match = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

/**
 * /health's latency while `work` runs (one GET every 100 ms): a pause of the main thread, such as a full
 * collection (P143), shows in its tail. Returns `p50/p99/max` in ms.
 */
async function healthDuring(service: Service, work: () => Promise<void>): Promise<string> {
  const times: number[] = [];
  let running = true;
  const probe = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`http://127.0.0.1:${service.port}/health`);
      await res.arrayBuffer();
      times.push(performance.now() - t0);
      await sleep(100);
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await probe;
  }
  times.sort((a, b) => a - b);
  return `/health p50 ${percentile(times, 50).toFixed(1)}, p99 ${percentile(times, 99).toFixed(1)}, max ${percentile(times, 100).toFixed(1)} ms (${times.length} probes)`;
}

/** kB fields of /proc/PID/status, in MB. */
function statusMb(pid: number, field: 'RssAnon' | 'RssFile'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(
    readFileSync(`/proc/${pid}/status`, 'utf8'),
  );
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Resident kB of the brk heap, glibc's main malloc arena (`[heap]` in /proc/PID/smaps), in MB. */
function brkHeapMb(pid: number): number {
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const match = /\[heap\]\n(?:.*\n)*?Rss:\s+(\d+) kB/.exec(smaps);
  return match ? Number(match[1]) / 1024 : 0;
}

/**
 * Where the service's memory is (issue 14 item 5), read from outside: /proc for the process, and the
 * main thread's V8 heap from the default metrics /metrics already serves (no debug endpoint). RssFile is
 * mostly the `node` binary's pages, shared with every Node process; "other anon" is RssAnon less the main
 * thread's V8 heap: malloc arenas (buffers, OpenSSL, the threads' own), thread stacks and the threads' heaps.
 */
async function breakdown(service: Service): Promise<string> {
  const pid = service.pid;
  const heapTotal = (await metric(service, 'nodejs_heap_size_total_bytes')) / 1048576;
  const heapUsed = (await metric(service, 'nodejs_heap_size_used_bytes')) / 1048576;
  const oldSpace = (await metric(service, 'nodejs_heap_space_size_total_bytes{space="old"}')) / 1048576;
  const external = (await metric(service, 'nodejs_external_memory_bytes')) / 1048576;
  const anon = statusMb(pid, 'RssAnon');
  return `RssFile ${mb(statusMb(pid, 'RssFile'))}, RssAnon ${mb(anon)} = main thread's V8 heap ${mb(heapTotal)} (${mb(heapUsed)} used, old space ${mb(oldSpace)}) + other anon ${mb(anon - heapTotal)} (brk arena ${mb(brkHeapMb(pid))}; external ${mb(external)})`;
}

/** Where the verification service writes its SIGUSR2 diagnostic reports in this run. */
function reportDir(): string {
  const dir = join(dataRoot, 'reports');
  mkdirSync(dir, { recursive: true });
  return dir;
}

interface ReportHeap {
  readonly totalMemory: number;
  readonly usedMemory: number;
  readonly externalMemory: number;
  readonly mallocedMemory: number;
  readonly heapSpaces: Readonly<Record<string, { readonly memorySize: number; readonly used: number }>>;
}

/** One isolate's heap from a diagnostic report: total (used), old, new, code and large-object spaces. */
function isolateLine(label: string, heap: ReportHeap): string {
  const space = (name: string) => mb((heap.heapSpaces[name]?.memorySize ?? 0) / 1048576);
  return `${label}: heap ${mb(heap.totalMemory / 1048576)} (${mb(heap.usedMemory / 1048576)} used; old ${space('old_space')}, new ${space('new_space')}, code ${space('code_space')}, large ${space('large_object_space')}), external ${mb(heap.externalMemory / 1048576)}, V8 malloc ${mb(heap.mallocedMemory / 1048576)}`;
}

/**
 * The V8 heap of every isolate of the service (its main thread and each verification thread), from the
 * Node diagnostic report SIGUSR2 makes it write (docs/operations.md): what /metrics cannot show, the
 * threads' own heaps. The rest of RssAnon is malloc (arenas, OpenSSL, buffers), stacks and code. P140.
 */
async function isolateHeaps(service: Service): Promise<string> {
  const dir = reportDir();
  const before = new Set(readdirSync(dir));
  process.kill(service.pid, 'SIGUSR2');
  for (let waited = 0; waited < 15_000; waited += 100) {
    await sleep(100);
    const file = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.json'));
    if (file === undefined) continue;
    let report: { javascriptHeap: ReportHeap; workers: { javascriptHeap: ReportHeap }[] };
    try {
      report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch {
      continue; // still being written
    }
    const heaps = [report.javascriptHeap, ...report.workers.map((w) => w.javascriptHeap)];
    const sum = heaps.reduce((total, h) => total + h.totalMemory, 0) / 1048576;
    const lines = [isolateLine('main', report.javascriptHeap)];
    report.workers.forEach((w, i) => {
      lines.push(isolateLine(`thread ${i + 1}`, w.javascriptHeap));
    });
    const anon = statusMb(service.pid, 'RssAnon');
    return `isolates (diagnostic report): ${lines.join('; ')}; all heaps ${mb(sum)}, RssAnon less them ${mb(anon - sum)}`;
  }
  return 'isolates: no diagnostic report within 15 s';
}

/**
 * Builds `count` distinct bundles (about 9 ms each on one core), or reads them back from the file a run
 * of the last hour wrote (their sessions last the tier's 4 hours): a second run skips the minutes of signing.
 */
function prepareBodies(count: number): string[] {
  const file = join(tmpdir(), `proto-bench-memory-${TIER}-${ENTRIES}-${count}.ndjson`);
  if (existsSync(file) && Date.now() - statSync(file).mtimeMs < 3_600_000) {
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.length > 0);
    if (lines.length === count) return lines;
  }
  const backend = selectCryptoBackend('auto');
  const first = buildSignedBundle({ tier: TIER, entries: ENTRIES, backend });
  const bodies = [JSON.stringify({ signed_bundle: first.signed_bundle })];
  // The same keys (key generation is not what is measured); each bundle has its own session and nonce.
  while (bodies.length < count) {
    const built = buildSignedBundle({ tier: TIER, entries: ENTRIES, backend, keys: first.keys });
    bodies.push(JSON.stringify({ signed_bundle: built.signed_bundle }));
  }
  writeFileSync(file, `${bodies.join('\n')}\n`);
  return bodies;
}

/** Highest RSS of the process while `work` runs (sampled every 250 ms). */
async function peakRssDuring(pid: number, work: () => Promise<void>): Promise<number> {
  let peak = rssMb(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 250);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, rssMb(pid));
}

/**
 * CPU time (utime+stime from /proc) per answered request while `work` runs: of the whole service and of
 * its main thread, which reads every missed body for its cache key. What a memory change costs in CPU.
 */
async function cpuPerVerify(pid: number, work: () => Promise<number>): Promise<string> {
  const all0 = cpuTimeMs(pid);
  const main0 = threadCpuTimeMs(pid, pid);
  const answered = await work();
  const all = (cpuTimeMs(pid) - all0) / answered;
  const main = (threadCpuTimeMs(pid, pid) - main0) / answered;
  return `CPU per verify ${all.toFixed(2)} ms (main thread ${main.toFixed(2)} ms)`;
}

/** Sends each body once, CONNECTIONS at a time; returns how many were answered `verified: true`. */
async function sendEach(url: string, bodies: readonly string[]): Promise<number> {
  let next = 0;
  let verified = 0;
  const lane = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const answer = (await res.json()) as { verified?: boolean };
      if (answer.verified === true) verified += 1;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, lane));
  return verified;
}

const mb = (n: number) => `${n.toFixed(0)} MB`;

async function main(): Promise<void> {
  const t0 = Date.now();
  const bodies = prepareBodies(CACHE_ENTRIES + EXTRA_BUNDLES);
  if (process.env['BENCH_MEMORY_PREPARE_ONLY'] === '1') return;
  dataRoot = mkdtempSync(join(tmpdir(), 'proto-bench-memory-'));
  console.log(
    `memory benchmark: ${availableParallelism()} cores, ${bodies.length} distinct v2 ${TIER} (${ENTRIES}) bundles ready in ${((Date.now() - t0) / 1000).toFixed(0)} s, services' NODE_OPTIONS=${process.env['BENCH_MEMORY_NODE_OPTIONS'] ?? process.env['NODE_OPTIONS'] ?? IMAGE_NODE_OPTIONS}, compile cache on, LOG_LEVEL=warn, SQLite`,
  );
  // A first start writes each service's compile cache (P36); what is measured is every later start.
  const warm = await startStack();
  await fetch(`http://127.0.0.1:${warm.verification.port}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: bodies[bodies.length - 1]!,
  });
  for (const s of warm.services.reverse()) await s.stop();
  const { services, verification } = await startStack();
  try {
    await sleep(SETTLE_S * 1000);
    console.log(`\nidle, ${SETTLE_S} s after /ready (VmRSS of /proc/PID/status):`);
    for (const s of services) console.log(`  ${s.name.padEnd(18)} ${mb(rssMb(s.pid))}`);
    console.log(`  verification: ${await breakdown(verification)}`);
    const pid = verification.pid;
    const threadsIdle = await metric(verification, 'proto_verify_pool_threads');
    console.log(`  verification worker threads alive: ${threadsIdle}`);
    // With no idle thread the first request pays a thread's start (P71); the second finds it running.
    const cold = await timedPost(verification, bodies[bodies.length - 2]!);
    const warmMs = await timedPost(verification, bodies[bodies.length - 3]!);
    console.log(
      `  first request after idle ${cold.toFixed(0)} ms, the next one ${warmMs.toFixed(0)} ms (${await metric(verification, 'proto_verify_pool_threads')} threads now)`,
    );

    const url = `http://127.0.0.1:${verification.port}/verify`;
    let verified = 0;
    let fillCpu = '';
    let fillHealth = '';
    const fillPeak = await peakRssDuring(pid, async () => {
      fillHealth = await healthDuring(verification, async () => {
        fillCpu = await cpuPerVerify(pid, async () => {
          verified = await sendEach(url, bodies.slice(0, CACHE_ENTRIES));
          return CACHE_ENTRIES;
        });
      });
    });
    const entries = await metric(verification, 'proto_verification_cache_entries');
    const cacheBytes = (await metric(verification, 'proto_verification_cache_bytes')) / 1048576;
    console.log(
      `\nverification, cache filled: ${verified}/${CACHE_ENTRIES} verified, ${entries} cached analyses (${mb(cacheBytes)} counted); RSS ${mb(rssMb(pid))}, peak while filling ${mb(fillPeak)}; ${fillCpu}`,
    );
    console.log(`  ${await breakdown(verification)}`);
    console.log(`  ${await isolateHeaps(verification)}`);
    console.log(`  ${fillHealth}`);

    // The bundles not yet cached first: each evicts the least recent, which is then the next one sent.
    let cursor = CACHE_ENTRIES;
    let answered = 0;
    let failures = 0;
    let loadCpu = '';
    let loadHealth = '';
    const loadPeak = await peakRssDuring(pid, async () => {
      loadHealth = await healthDuring(verification, async () => {
        loadCpu = await cpuPerVerify(pid, async () => {
          const result = await autocannon({
            url,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            connections: CONNECTIONS,
            duration: LOAD_S,
            requests: [{ setupRequest: (req) => ({ ...req, body: bodies[cursor++ % bodies.length]! }) }],
          });
          answered = result['2xx'];
          failures = result.non2xx + result.errors;
          return answered;
        });
      });
    });
    const entriesAfter = await metric(verification, 'proto_verification_cache_entries');
    const threadsLoaded = await metric(verification, 'proto_verify_pool_threads');
    console.log(
      `verification, saturation (${CONNECTIONS} connections, ${LOAD_S} s, ${bodies.length} bundles in turn: every one a cache miss): ${(answered / LOAD_S).toFixed(1)} bundles/s, ${failures} failed; ${entriesAfter} cached, ${threadsLoaded} threads; peak RSS ${mb(loadPeak)}, after ${mb(rssMb(pid))}; ${loadCpu}`,
    );
    console.log(`  ${await breakdown(verification)}`);
    console.log(`  ${await isolateHeaps(verification)}`);
    console.log(`  ${loadHealth}`);
    await sleep(IDLE_MS + 2000);
    const threadsAfter = await metric(verification, 'proto_verify_pool_threads');
    console.log(
      `verification, ${((IDLE_MS + 2000) / 1000).toFixed(0)} s after the load (cache still full, ${threadsAfter} threads alive): RSS ${mb(rssMb(pid))}`,
    );
    console.log(`  ${await breakdown(verification)}`);
    console.log('\nafter the run:');
    for (const s of services) console.log(`  ${s.name.padEnd(18)} ${mb(rssMb(s.pid))}`);
  } finally {
    for (const s of services.reverse()) await s.stop();
    rmSync(dataRoot, { recursive: true, force: true });
  }
}

await main();
