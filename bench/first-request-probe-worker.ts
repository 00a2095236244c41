// The thread bench/first-request-probe.ts starts: the verification worker's start, step by step, with a
// clock every thread shares (timeOrigin + now), so the steps line up with the parent's "thread asked for".
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const at = () => performance.timeOrigin + performance.now();
const marks: [string, number][] = [['thread running', at()]];
const { root, bodies } = workerData as { root: string; bodies: readonly string[] };
const source = (path: string) => pathToFileURL(join(root, path)).href;

// The engine first (most of the thread's modules), then the worker module: its other modules and the
// verifier it builds at load. A thread loads core's verifier subpath where the checkout has one (P125).
const verifierEntry = 'packages/core/src/verifier-entry.ts';
await import(source(existsSync(join(root, verifierEntry)) ? verifierEntry : 'packages/core/src/index.ts'));
marks.push(['@proto/core loaded', at()]);
const worker = (await import(source('services/verification/src/worker.ts'))) as {
  default: (task: unknown) => { kind: string; response?: { verified: boolean }; facts?: unknown };
};
marks.push(['worker.ts loaded, verifier built', at()]);
const verdicts: string[] = [];
for (const [i, body] of bodies.entries()) {
  const result = worker.default({
    body: new TextEncoder().encode(body),
    format: 'json',
    wantAnalysis: true,
    now: Date.now(),
  });
  verdicts.push(result.kind);
  marks.push([`verify ${i + 1} (${result.kind})`, at()]);
}
parentPort!.postMessage({ marks, verdicts });
