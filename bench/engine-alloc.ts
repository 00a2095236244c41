// What one verification allocates (issue 14, P133): the engine's own work, signatures answered at once,
// in one thread. P124 traced the pool isolates' GC (0.16–0.27 ms a bundle at elevated-10) to what a
// verification allocates; this counts it. With a young generation large enough that N verifications run
// without a collection (checked: a collection during the run is reported and the figure refused), the
// heap grows by exactly what they allocated that is not yet freed, i.e. everything: a forced full GC
// before, none during. ArrayBuffer memory (Buffers, Uint8Arrays) lives outside the V8 heap and is counted
// apart (`arrayBuffers`). ALLOC_SAMPLE=1 instead samples allocations by function through the inspector's
// heap profiler (objects a scavenge freed included), to see who allocates.
// Usage: pnpm exec node --expose-gc --min-semi-space-size=256 --max-semi-space-size=256 bench/engine-alloc.ts
//        [ONLY=elevated-10] [N=verifications, by default the case's timed batch] [ALLOC_SAMPLE=1 TOP=30]
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { buildSignedBundle, selectCryptoBackend } from '@proto/core';
import { ENGINE_CASES, instantVerifier } from './engine-cases.ts';

const ONLY = process.env['ONLY'];
const FIXED_N = process.env['N'] === undefined ? undefined : Number(process.env['N']);
const SAMPLE = process.env['ALLOC_SAMPLE'] === '1';
const TOP = Number(process.env['TOP'] ?? 30);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

let collections = 0;
new PerformanceObserver((list) => {
  collections += list.getEntries().length;
}).observe({ entryTypes: ['gc'] });
// The observer's callback runs on a later tick: let pending entries arrive before reading the count.
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

interface SampleNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampleNode[];
}

const siteOf = (node: SampleNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(packages|bench|node_modules)\//, '$1/')}:${node.callFrame.lineNumber + 1}`;

// A built-in (no script of its own: `next`, `keys`, `Uint8Array`) is named with the function that called it.
function bySite(node: SampleNode, into: Map<string, number>, caller = ''): Map<string, number> {
  const site = siteOf(node);
  if (node.selfSize > 0) {
    const key = node.callFrame.url === '' ? `${site} ← ${caller}` : site;
    into.set(key, (into.get(key) ?? 0) + node.selfSize);
  }
  for (const child of node.children) bySite(child, into, site);
  return into;
}

const backend = selectCryptoBackend('auto');
const verifier = instantVerifier(backend);
for (const { name, options, ab, runs } of ENGINE_CASES) {
  const N = FIXED_N ?? runs;
  if (ONLY === undefined ? !ab : !name.includes(ONLY)) continue;
  const parsed: unknown = JSON.parse(
    JSON.stringify({ signed_bundle: buildSignedBundle({ ...options, backend }).signed_bundle }),
  );
  for (let i = 0; i < 300; i++)
    if (!verifier.verify(parsed).verified) throw new Error(`${name} does not verify`);
  if (SAMPLE) {
    const session = new Session();
    session.connect();
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    for (let i = 0; i < N; i++) verifier.verify(parsed);
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as {
      profile: { head: SampleNode };
    };
    session.disconnect();
    const sites = [...bySite(profile.head, new Map())].sort((a, b) => b[1] - a[1]);
    const total = sites.reduce((sum, [, bytes]) => sum + bytes, 0);
    console.log(`${name}: ~${(total / N / 1024).toFixed(1)} KiB sampled a verification (V8 heap)`);
    for (const [site, bytes] of sites.slice(0, TOP))
      console.log(`  ${(bytes / N / 1024).toFixed(2).padStart(8)} KiB  ${site}`);
    continue;
  }
  gc();
  await settle();
  const before = collections;
  const heap0 = getHeapStatistics().used_heap_size;
  const buffers0 = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < N; i++) verifier.verify(parsed);
  const heap1 = getHeapStatistics().used_heap_size;
  const buffers1 = process.memoryUsage().arrayBuffers;
  await settle();
  if (collections !== before) {
    console.log(
      `${name}: ${collections - before} collection(s) during the run; raise --max-semi-space-size or lower N`,
    );
    continue;
  }
  console.log(
    `${name}: ${((heap1 - heap0) / N / 1024).toFixed(1)} KiB V8 heap and ${((buffers1 - buffers0) / N / 1024).toFixed(1)} KiB ArrayBuffer memory a verification (${N} runs, no collection)`,
  );
}
