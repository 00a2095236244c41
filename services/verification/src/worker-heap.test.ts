// VERIFY_WORKER_OLD_GENERATION_MB (P140): validated as the service's other variables, and in force in the
// real service's verification threads under the image's `--max-semi-space-size=4` (V8 ignores a thread's
// young-generation limit under that flag, P99; the old generation's must hold). The limit a thread runs
// under is read from the Node diagnostic report SIGUSR2 writes (each thread's javascriptHeap.memoryLimit).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@proto/service-kit';
import { waitFor } from '@proto/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { loadVerificationConfig } from './config.ts';
import { metricValue, postVerify, sampleBundle, spawnService } from './test-support.ts';
import { workerResourceLimits } from './worker-heap.ts';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('VERIFY_WORKER_OLD_GENERATION_MB', () => {
  it('caps a thread at 32 MB by default, at the value given, and not at all with 0', () => {
    expect(workerResourceLimits({})).toEqual({ maxOldGenerationSizeMb: 32 });
    expect(workerResourceLimits({ VERIFY_WORKER_OLD_GENERATION_MB: '48' })).toEqual({
      maxOldGenerationSizeMb: 48,
    });
    expect(workerResourceLimits({ VERIFY_WORKER_OLD_GENERATION_MB: '0' })).toEqual({});
    expect(loadVerificationConfig({}).VERIFY_WORKER_OLD_GENERATION_MB).toBe(32);
  });

  it('refuses a value a thread could not live under, or no number, naming the variable', () => {
    for (const value of ['8', '15', '-1', 'lots', '5000']) {
      let caught: unknown;
      try {
        workerResourceLimits({ VERIFY_WORKER_OLD_GENERATION_MB: value });
      } catch (error) {
        caught = error;
      }
      expect(caught, value).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).message).toContain('VERIFY_WORKER_OLD_GENERATION_MB');
    }
    expect(() => loadVerificationConfig({ VERIFY_WORKER_OLD_GENERATION_MB: 'lots' })).toThrow(
      /VERIFY_WORKER_OLD_GENERATION_MB/,
    );
  });
});

/** The V8 heap limit (MB) of each verification thread of a real service with `env`, after one verification. */
async function threadHeapLimitsMb(env: Record<string, string>): Promise<number[]> {
  const reports = mkdtempSync(join(tmpdir(), 'reports-'));
  const started = spawnService(
    {
      PORT: '0',
      LOG_LEVEL: 'info',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'verification-')),
      DIAGNOSTIC_REPORT_DIR: reports,
      VERIFY_WORKERS: '1',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      NODE_OPTIONS: '--max-semi-space-size=4',
      ...env,
    },
    [],
  );
  children.push(started.child);
  const base = await started.listening();
  const answer = await postVerify(base, {
    signed_bundle: sampleBundle({ tier: 'standard', entries: 2 }).signed_bundle,
  });
  expect(answer.json['verified']).toBe(true);
  started.child.kill('SIGUSR2');
  await waitFor(() => started.output().includes('diagnostic report written'), 15_000, 'the report');
  const [file] = readdirSync(reports);
  const report = JSON.parse(readFileSync(join(reports, file!), 'utf8')) as {
    workers: { javascriptHeap: { memoryLimit: number } }[];
  };
  started.child.kill('SIGTERM');
  await started.exit;
  return report.workers.map((w) => w.javascriptHeap.memoryLimit / 1048576);
}

describe("a verification thread's heap limit under the image's --max-semi-space-size=4", () => {
  it('follows VERIFY_WORKER_OLD_GENERATION_MB, and is V8 own without it', async () => {
    // The limit V8 reports is the old generation's plus the young generation's (3 × 4 MB semi-spaces).
    const capped = await threadHeapLimitsMb({ VERIFY_WORKER_OLD_GENERATION_MB: '24' });
    expect(capped).toHaveLength(1);
    expect(capped[0]).toBeGreaterThanOrEqual(24);
    expect(capped[0]).toBeLessThanOrEqual(24 + 16);
    const byDefault = await threadHeapLimitsMb({});
    expect(byDefault[0]).toBeLessThanOrEqual(32 + 16);
    const uncapped = await threadHeapLimitsMb({ VERIFY_WORKER_OLD_GENERATION_MB: '0' });
    expect(uncapped[0]).toBeGreaterThan(256);
  });
});

describe('a verification thread at the smallest cap allowed', () => {
  it('verifies a batch of maximum-60 bundles as large as a request may be, in groups of 8, and lives on', async () => {
    const started = spawnService(
      {
        PORT: '0',
        LOG_LEVEL: 'info',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'verification-')),
        VERIFY_WORKERS: '1',
        VERIFY_RATE_LIMIT_PER_MINUTE: '0',
        VERIFICATION_CACHE_MAX_ENTRIES: '0',
        VERIFY_WORKER_OLD_GENERATION_MB: '16',
        NODE_OPTIONS: '--max-semi-space-size=4',
      },
      [],
    );
    children.push(started.child);
    const base = await started.listening();
    const line = JSON.stringify({
      signed_bundle: sampleBundle({ tier: 'maximum', entries: 60 }).signed_bundle,
    });
    // As many as VERIFY_BATCH_MAX_BYTES (8 MiB) and VERIFY_BATCH_MAX_ITEMS allow, twice over.
    const count = Math.min(1000, Math.floor((8 * 1048576) / (line.length + 1)));
    for (let round = 0; round < 2; round += 1) {
      const res = await fetch(`${base}/verify/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: Array.from({ length: count }, () => line).join('\n'),
      });
      expect(res.status).toBe(200);
      const answers = (await res.text()).split('\n').filter((l) => l !== '');
      expect(answers).toHaveLength(count);
      for (const answer of answers) expect((JSON.parse(answer) as { verified: boolean }).verified).toBe(true);
    }
    // One thread started, none ended: V8 ends an isolate that cannot get under its cap.
    expect(await metricValue(base, 'proto_verify_pool_threads_started_total')).toBe(1);
    expect(await metricValue(base, 'proto_verify_pool_threads_stopped_total')).toBe(0);
    started.child.kill('SIGTERM');
    await started.exit;
  });
});
