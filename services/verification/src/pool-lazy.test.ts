// Lazy verification threads over real HTTP (P71, issue 14 item 5): an idle service holds no thread and
// stays ready, a request starts one, an idle thread stops, and verdicts do not depend on which thread (or
// how fresh a thread) gave them. Thread counts come from /metrics; nothing here asserts a duration.
import { createVerifier, selectCryptoBackend } from '@proto/core';
import { ConfigError } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadVerificationConfig } from './config.ts';
import { metricValue, postVerify, type RunningApp, sampleBundle, startThreadedApp } from './test-support.ts';

let service: RunningApp;
let valid: Record<string, unknown>;
let tampered: Record<string, unknown>;

beforeAll(async () => {
  const built = sampleBundle({ tier: 'standard', entries: 4 });
  valid = { signed_bundle: built.signed_bundle };
  const copy = structuredClone(built.signed_bundle) as {
    bundle: { audit_entries: Record<string, unknown>[] };
  };
  copy.bundle.audit_entries[0]!['outcome'] = 'something_else';
  tampered = { signed_bundle: copy };
  service = await startThreadedApp(2, 200);
});

afterAll(async () => {
  await service?.close();
});

const gauge = (name: string) => metricValue(service.url, name);

/** What a verdict says, without the clock readings. */
function verdictOf(json: Record<string, unknown>) {
  const { verified, errors, warnings, resolved_tier, checks } = json as Record<string, unknown>;
  return { verified, errors, warnings, resolved_tier, checks };
}

async function ready(): Promise<{ status: number; checks: unknown }> {
  const res = await fetch(`${service.url}/ready`);
  return { status: res.status, checks: ((await res.json()) as Record<string, unknown>)['checks'] };
}

describe('verification threads start on demand and stop when idle', () => {
  it('holds no thread before the first request and is ready all the same', async () => {
    expect(await gauge('proto_verify_pool_threads')).toBe(0);
    expect(await gauge('proto_verify_pool_threads_started_total')).toBe(0);
    expect(await ready()).toEqual({ status: 200, checks: expect.objectContaining({ 'verify-pool': 'ok' }) });
  });

  it('starts a thread for a request, stops it once idle, and starts another for the next request', async () => {
    const first = await postVerify(service.url, valid);
    expect(first.status).toBe(200);
    expect(first.json['verified']).toBe(true);
    expect(await gauge('proto_verify_pool_threads_started_total')).toBeGreaterThanOrEqual(1);

    await vi.waitFor(async () => expect(await gauge('proto_verify_pool_threads')).toBe(0), {
      timeout: 30_000,
      interval: 100,
    });
    const started = await gauge('proto_verify_pool_threads_started_total');
    expect(await gauge('proto_verify_pool_threads_stopped_total')).toBe(started);
    expect((await ready()).status).toBe(200);

    const again = await postVerify(service.url, valid);
    expect(again.status).toBe(200);
    expect(await gauge('proto_verify_pool_threads_started_total')).toBe(started + 1);
    expect(verdictOf(again.json)).toEqual(verdictOf(first.json));
  });

  it('gives the in-process verifier its verdicts, accepted and rejected, from fresh and reused threads', async () => {
    const verifier = createVerifier({ mode: 'hybrid_preferred', backend: selectCryptoBackend('auto') });
    if (!verifier.ok) throw new Error(verifier.error.message);
    for (const request of [valid, tampered]) {
      const expected = verifier.value.verify(structuredClone(request));
      // Concurrent requests: both threads of the pool answer, the second possibly just started.
      const answers = await Promise.all([1, 2, 3, 4].map(() => postVerify(service.url, request)));
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.json['verified']).toBe(expected.verified);
        expect(answer.json['errors'] ?? []).toEqual(expected.errors ?? []);
        expect(answer.json['resolved_tier']).toBe(expected.resolved_tier);
      }
    }
    expect(await gauge('proto_verify_pool_threads')).toBeLessThanOrEqual(2);
  });
});

describe('VERIFY_WORKERS_MIN', () => {
  it('may not exceed VERIFY_WORKERS', () => {
    expect(() => loadVerificationConfig({ VERIFY_WORKERS: '2', VERIFY_WORKERS_MIN: '3' })).toThrow(
      ConfigError,
    );
  });
});
