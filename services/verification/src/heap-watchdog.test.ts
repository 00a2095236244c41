// The main thread's heap watchdog (P143): the real service, its heap inflated by dense /verify bodies parsed on
// the main thread, forces a full collection (counted in /metrics, logged at debug), and none with the setting 0;
// the trigger rule and its minimum gap on a simulated heap.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BODY_LIMIT } from '@proto/service-kit';
import { waitFor } from '@proto/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startHeapWatchdog } from './heap-watchdog.ts';
import { metricValue, type SpawnedService, spawnService } from './test-support.ts';

const MB = 1024 * 1024;
let started: SpawnedService | undefined;

afterEach(async () => {
  if (started !== undefined && started.child.exitCode === null) {
    started.child.kill('SIGTERM');
    await started.exit;
  }
  started = undefined;
});

/** A /verify body of empty objects just within the body limit: ~19 bytes of heap a byte once parsed. */
function denseBody(): string {
  const head = '{"signed_bundle":{"bundle":[';
  const tail = ']}}';
  const count = Math.floor((DEFAULT_BODY_LIMIT - head.length - tail.length + 1) / 3);
  return `${head}${Array.from({ length: count }, () => '{}').join(',')}${tail}`;
}

async function inflate(base: string): Promise<void> {
  const body = denseBody();
  // Many at once, so the parsed trees outlive the young generation and old space grows around them.
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        fetch(`${base}/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
      ),
    );
    for (const answer of answers) await answer.arrayBuffer();
  }
}

function spawn(watchdogMs: string): SpawnedService {
  started = spawnService({
    PORT: '0',
    LOG_LEVEL: 'debug',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'verification-')),
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    VERIFY_HEAP_WATCHDOG_MS: watchdogMs,
    // The image's setting (docker/Dockerfile).
    NODE_OPTIONS: '--max-semi-space-size=4',
  });
  return started;
}

describe('the heap watchdog in the service', () => {
  it('forces a full collection once dense bodies have grown the main thread’s heap', async () => {
    const service = spawn('200');
    const base = await service.listening();
    expect(await metricValue(base, 'proto_verification_forced_gc_total')).toBe(0);
    await inflate(base);
    await waitFor(
      async () => (await metricValue(base, 'proto_verification_forced_gc_total')) >= 1,
      15_000,
      'a forced collection',
    );
    expect(service.output()).toMatch(/"msg":"heap watchdog: forced a full collection"/);
    expect(await metricValue(base, 'proto_verification_forced_gc_seconds_total')).toBeGreaterThan(0);
    // The service answers on.
    expect((await fetch(`${base}/health`)).status).toBe(200);
  }, 60_000);

  it('forces none with VERIFY_HEAP_WATCHDOG_MS=0', async () => {
    const service = spawn('0');
    const base = await service.listening();
    await inflate(base);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await metricValue(base, 'proto_verification_forced_gc_total')).toBe(0);
    expect(service.output()).not.toContain('heap watchdog');
  }, 60_000);
});

describe('the watchdog’s rule', () => {
  it('collects when the total outgrows the floor and the live data, at most once per gap', () => {
    let total = 80 * MB;
    let used = 60 * MB;
    let clock = 0;
    let gcs = 0;
    const watchdog = startHeapWatchdog({
      intervalMs: 60_000,
      factor: 1.5,
      floorBytes: 96 * MB,
      minGapMs: 5_000,
      heap: () => ({ total, used }),
      gc: () => {
        gcs += 1;
        total = 110 * MB;
        used = 70 * MB;
      },
      now: () => clock,
    });
    try {
      watchdog.check(); // under the floor
      total = 100 * MB; // above the floor and 1.5 × the 60 MB live
      watchdog.check();
      expect(gcs).toBe(1);
      total = 200 * MB; // outgrown again, but within the gap
      clock = 4_000;
      watchdog.check();
      expect(gcs).toBe(1);
      clock = 5_001;
      watchdog.check();
      expect(gcs).toBe(2);
      total = 100 * MB; // 1.5 × 70 MB live = 105 MB: nothing to do
      clock = 20_000;
      watchdog.check();
      expect(watchdog.collections).toBe(2);
    } finally {
      watchdog.stop();
    }
  });
});
