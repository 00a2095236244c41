// Hostile suite, P228: a bundle whose schema fails in every one of 400,000 array items costs a verification thread
// no more than a valid bundle of its size. The yes/no pass stops at the first error; the second pass that names
// every issue (allErrors) made an error object for each item, twice, and the answer still named eight of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let app: RunningApp;

beforeAll(async () => {
  app = await startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
  });
});
afterAll(() => app.close());

const ITEMS = 400_000;

describe('P228: schema issues cost a thread time bounded by the answer, not by the number of wrong items', () => {
  it('an intent whose data_classes holds 400,000 numbers (an 800 KB body) is refused within seconds, its first issue named', async () => {
    const { signed_bundle } = sampleBundle({ tier: 'routine', classicalOnly: true });
    const bundle = signed_bundle['bundle'] as Record<string, Record<string, Record<string, unknown>>>;
    bundle['intent']!['payload']!['data_classes'] = new Array(ITEMS).fill(1);
    const body = JSON.stringify({ signed_bundle });
    // A first request warms the thread (its schemas compiled), as a running service's is.
    const warm = await postVerify(app.url, {
      signed_bundle: sampleBundle({ tier: 'routine' }).signed_bundle,
    });
    expect(warm.status).toBe(200);

    const started = performance.now();
    const { status, json } = await postVerify(app.url, body);
    const elapsedMs = performance.now() - started;
    expect(status).toBe(200);
    expect(json['verified']).toBe(false);
    expect((json['checks'] as Record<string, string>)['schema']).toBe('fail');
    const details = json['error_details'] as { code: string; message: string }[];
    expect(details[0]!.code).toBe('PROTO-E002');
    expect(details[0]!.message).toMatch(/^intent\.payload \(intent\): \/data_classes\/0 must be string/);
    // Before P228: about 5 s of the thread on this host (a valid 950 KB maximum-tier bundle takes about 0.12 s).
    // Now well under a second; 2.5 s leaves room for a loaded machine.
    expect(elapsedMs).toBeLessThan(2_500);
  }, 120_000);
});
