// What a cache miss keeps while it waits for a verification thread (issue 14 item 5, P95). The main thread
// parsed a missed body for its cache key; that tree had to be garbage before the request waits, or at
// saturation every waiting request held one past the young generation and old space filled with them.
// Since P235 the key is a hash of the bytes and the main thread parses no body at all.
// The runner is the service's own; the pool is held back so that the request is waiting when GC runs,
// and the body parser is wrapped to keep a weak reference to each tree it returns.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildSignedBundle, createVerifier, selectCryptoBackend } from '@proto/core';
import { describe, expect, it, vi } from 'vitest';
import { VerificationCache } from '../src/cache.ts';
import type { ExternalChecks } from '../src/external-checks.ts';
import type { VerificationMetrics } from '../src/metrics.ts';
import type { VerifyPool } from '../src/pool.ts';
import { createVerificationRunner } from '../src/verification-run.ts';
import type { VerifyTask, VerifyTaskResult } from '../src/worker.ts';

const parsedTrees: WeakRef<object>[] = [];
vi.mock('../src/verify-request.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/verify-request.ts')>();
  return {
    ...original,
    parseJsonBody: (...args: Parameters<typeof original.parseJsonBody>) => {
      const parsed = original.parseJsonBody(...args);
      if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null) {
        parsedTrees.push(new WeakRef(parsed.value));
      }
      return parsed;
    },
  };
});

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

describe('a cache miss waiting for a thread', () => {
  it('holds no tree of its body: the main thread parses none, the body waits as bytes (P235)', async () => {
    const built = createVerifier({ backend: selectCryptoBackend('auto') });
    if (!built.ok) throw new Error(built.error.message);
    const tasks: { task: VerifyTask; answer: (result: VerifyTaskResult) => void }[] = [];
    const pool = {
      run: (task: VerifyTask) =>
        new Promise<VerifyTaskResult>((answer) => {
          tasks.push({ task, answer });
        }),
    } as unknown as VerifyPool;
    const metrics = { cacheMisses: { inc: () => {} } } as unknown as VerificationMetrics;
    const runner = createVerificationRunner({
      verifier: built.value,
      pool,
      cache: new VerificationCache(100),
      metrics,
      external: {} as ExternalChecks,
    });
    const runs = [1, 2, 3].map(() => {
      const body = JSON.stringify({ signed_bundle: buildSignedBundle().signed_bundle });
      return runner.run({ format: 'json', bytes: new TextEncoder().encode(body) });
    });
    await vi.waitFor(() => expect(tasks).toHaveLength(3));
    expect(parsedTrees).toHaveLength(0);
    // Each request was hashed for its key and is now waiting: its body went to the pool as bytes.
    for (const { task } of tasks) expect(task.body).toBeInstanceOf(Uint8Array);
    // A WeakRef holds its target until the job that made it ends.
    await new Promise((r) => setTimeout(r, 10));
    collectGarbage();
    expect(parsedTrees.filter((tree) => tree.deref() !== undefined)).toHaveLength(0);

    for (const { answer } of tasks) answer({ kind: 'bad_request', message: 'held back' });
    for (const outcome of await Promise.all(runs)) expect(outcome.kind).toBe('bad_request');
  });
});
