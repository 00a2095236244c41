// Per-thread CPU over real HTTP (issue 14, P86): after verifications both the workers' and the main
// thread's counters of /metrics have risen, every reading is finite and never falls (not even when the
// thread that did the work stops), and the two together stay within the process's own CPU.
import { waitFor } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startThreadedApp } from './test-support.ts';

let service: RunningApp;
let request: Record<string, unknown>;

beforeAll(async () => {
  request = { signed_bundle: sampleBundle({ tier: 'elevated', entries: 6 }).signed_bundle };
  // One thread, started before the first reading: what the counters gain is per-task reporting, not a start.
  service = await startThreadedApp(1, 1000);
});

afterAll(async () => {
  await service?.close();
});

interface Reading {
  readonly main: number;
  readonly workers: number;
  readonly process: number;
  readonly threads: number;
  readonly started: number;
}

async function scrape(): Promise<Reading> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    if (line === undefined) throw new Error(`${series} not in /metrics`);
    return Number(line.slice(series.length + 1));
  };
  return {
    main: value('proto_verify_thread_cpu_seconds_total{thread="main"}'),
    workers: value('proto_verify_thread_cpu_seconds_total{thread="workers"}'),
    process: value('process_cpu_seconds_total'),
    threads: value('proto_verify_pool_threads'),
    started: value('proto_verify_pool_threads_started_total'),
  };
}

async function verifyTimes(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await postVerify(service.url, request);
    expect(res.status).toBe(200);
    expect(res.json['verified']).toBe(true);
  }
}

function expectSane(r: Reading): void {
  for (const v of [r.main, r.workers, r.process]) {
    expect(Number.isFinite(v)).toBe(true);
    expect(v).toBeGreaterThanOrEqual(0);
  }
  // Both are parts of the process's CPU (a few ms of slack: the readings are taken one after another).
  expect(r.main + r.workers).toBeLessThanOrEqual(r.process + 0.05);
}

describe('proto_verify_thread_cpu_seconds_total', () => {
  it('rises for the workers and for the main thread as bundles are verified', async () => {
    await verifyTimes(1);
    const before = await scrape();
    expect(before.threads).toBe(1);
    expectSane(before);
    await verifyTimes(12);
    const after = await scrape();
    expectSane(after);
    // The same thread did the work: the rise is what its tasks used, not a thread's start.
    expect(after.started).toBe(before.started);
    expect(after.workers).toBeGreaterThan(before.workers);
    expect(after.main).toBeGreaterThan(before.main);
    // Twelve elevated bundles are milliseconds of signatures each: the workers did more than a trace.
    expect(after.workers - before.workers).toBeGreaterThan(0.005);
  });

  it('keeps what a stopped thread used: the workers counter never falls', async () => {
    await verifyTimes(4);
    const busy = await scrape();
    // The idle timeout (1 s) stops every thread; their CPU stays counted.
    const idle = await waitFor(
      async () => {
        const now = await scrape();
        return now.threads === 0 && now;
      },
      5_000,
      'every thread to stop',
      50,
    );
    expect(idle.threads).toBe(0);
    expectSane(idle);
    expect(idle.workers).toBeGreaterThanOrEqual(busy.workers);
    expect(idle.main).toBeGreaterThanOrEqual(busy.main);
    await verifyTimes(2);
    const again = await scrape();
    expect(again.workers).toBeGreaterThan(idle.workers);
  });
});
