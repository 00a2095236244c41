// The analysis cache's byte bound over real HTTP (P73, issue 14 item 5): distinct bundles beyond
// VERIFICATION_CACHE_MAX_BYTES push the least recent analyses out, whatever VERIFICATION_CACHE_MAX_ENTRIES allows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

const MAX_BYTES = 4096;
let service: RunningApp;

beforeAll(async () => {
  service = await startApp({
    VERIFY_WORKERS: '1',
    VERIFICATION_CACHE_MAX_ENTRIES: '1000',
    VERIFICATION_CACHE_MAX_BYTES: String(MAX_BYTES),
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
  });
});

afterAll(async () => {
  await service?.close();
});

const gauge = (name: string) => metricValue(service.url, name);

describe('VERIFICATION_CACHE_MAX_BYTES', () => {
  it('holds the most recent analyses that fit in its bytes, and answers an evicted one afresh', async () => {
    const requests = [1, 2, 3, 4, 5].map(() => ({
      signed_bundle: sampleBundle({ tier: 'standard', entries: 3 }).signed_bundle,
    }));
    for (const request of requests) {
      const answer = await postVerify(service.url, request);
      expect(answer.json['verified']).toBe(true);
      expect(answer.headers.get('x-verification-cache')).toBe('miss');
    }
    const entries = await gauge('proto_verification_cache_entries');
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(requests.length);
    expect(await gauge('proto_verification_cache_bytes')).toBeLessThanOrEqual(MAX_BYTES);

    const newest = await postVerify(service.url, requests[4]);
    expect(newest.headers.get('x-verification-cache')).toBe('hit');
    const oldest = await postVerify(service.url, requests[0]);
    expect(oldest.headers.get('x-verification-cache')).toBe('miss');
    expect(oldest.json['verified']).toBe(true);
  });
});
