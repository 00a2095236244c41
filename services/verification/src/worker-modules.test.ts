// A verification thread loads @proto/core's verifier subpath, not the package index (P125): the index brings
// the bundle builder, the anchor checks and the log's notes and tiles, which a thread never runs, into every
// thread's start. One import of the index anywhere in worker.ts's graph would bring them back.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { loadVerificationConfig } from './config.ts';
import { portableVerifierOptions } from './verifier-options.ts';

// The thread records every module it loads, then loads worker.ts as the pool's threads do.
const THREAD = `
const { registerHooks } = require('node:module');
const { parentPort, workerData } = require('node:worker_threads');
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
import(workerData.entry).then(
  () => parentPort.postMessage({ loaded }),
  (error) => parentPort.postMessage({ error: String(error) }),
);
`;

async function modulesOfAThread(): Promise<string[]> {
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: {
      ...portableVerifierOptions(loadVerificationConfig({})),
      threadCpu: new SharedArrayBuffer(8),
      entry: pathToFileURL(fileURLToPath(new URL('./worker.ts', import.meta.url))).href,
    },
  });
  try {
    const report = await new Promise<{ loaded?: string[]; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    if (report.error !== undefined) throw new Error(report.error);
    return report.loaded ?? [];
  } finally {
    await worker.terminate();
  }
}

describe('a verification thread', () => {
  it("loads the verifier's modules of @proto/core, not its index, the builder or the log's tiles", async () => {
    const core = (await modulesOfAThread()).filter((url) => url.includes('/packages/core/src/'));
    expect(core.some((url) => url.endsWith('/packages/core/src/bundle/verifier.ts'))).toBe(true);
    expect(core.some((url) => url.endsWith('/packages/core/src/verifier-entry.ts'))).toBe(true);
    expect(
      core.filter((url) => /\/packages\/core\/src\/(index|bundle\/build\/.*|tlog\/.*)\.ts$/.test(url)),
    ).toEqual([]);
  });
});
