// One fresh process: starts a thread that loads the verification worker module as the pool's threads do
// and verifies the bodies (one per line of the file argv[3]), printing one JSON line of timestamps.
// Usage (bench/first-request.ts runs it): node bench/first-request-probe.ts ROOT BODIES_FILE
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const [root, bodiesFile] = process.argv.slice(2);
if (root === undefined || bodiesFile === undefined)
  throw new Error('usage: first-request-probe.ts ROOT BODIES_FILE');
const bodies = readFileSync(bodiesFile, 'utf8')
  .split('\n')
  .filter((line) => line.length > 0);
const service = (path: string) => pathToFileURL(join(root, 'services/verification/src', path)).href;
const { loadVerificationConfig } = (await import(service('config.ts'))) as {
  loadVerificationConfig: () => unknown;
};
const { portableVerifierOptions } = (await import(service('verifier-options.ts'))) as {
  portableVerifierOptions: (config: unknown) => Record<string, unknown>;
};
const workerData = {
  root,
  bodies,
  ...portableVerifierOptions(loadVerificationConfig()),
  threadCpu: new SharedArrayBuffer(8),
};
const asked = performance.timeOrigin + performance.now();
const worker = new Worker(new URL('./first-request-probe-worker.ts', import.meta.url), { workerData });
const report = await new Promise<{ marks: [string, number][]; verdicts: string[] }>((resolve, reject) => {
  worker.once('message', resolve);
  worker.once('error', reject);
});
await worker.terminate();
console.log(JSON.stringify({ asked, ...report }));
