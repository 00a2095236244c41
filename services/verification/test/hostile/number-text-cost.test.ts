// Hostile suite, P226: the strict JSON reading (P150's exact-integer rule) costs time linear in the number's
// text. A number written as `1` + 60,000 zeros + `1e-99999` is read by JSON.parse as 0, so its decimal digits were
// compared with "0", and stripping its trailing zeros with /0*$/ backtracked at every position: quadratic, on the
// event loop (the cache key is computed there), once to find it and once to name it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let app: RunningApp;

beforeAll(async () => {
  app = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0', MAX_EVENT_LOOP_DELAY_MS: '0' });
});
afterAll(() => app.close());

/** A digit string whose zeros sit between two non-zero digits, read as the integer 0 by JSON.parse. */
const ZEROS = 60_000;
const underflowingNumber = `1${'0'.repeat(ZEROS)}1e-99999`;

describe('P226: a long number costs the service time linear in its text', () => {
  it('a /verify body with a 60 KB number that reads as 0 is refused within seconds, and the service stays live', async () => {
    const { signed_bundle } = sampleBundle({ tier: 'routine', classicalOnly: true });
    const body = `{"signed_bundle":${JSON.stringify(signed_bundle)},"note":${underflowingNumber}}`;
    const started = performance.now();
    const answer = postVerify(app.url, body);
    // The event loop answers something else meanwhile (before: every request waited the whole walk).
    const health = await fetch(`${app.url}/health`);
    const healthAfterMs = performance.now() - started;
    expect(health.status).toBe(200);
    const { status, json } = await answer;
    const elapsedMs = performance.now() - started;
    expect(status).toBe(400);
    const details = json['error_details'] as { code: string; message: string }[];
    expect(details[0]!.code).toBe('PROTO-E001');
    expect(details[0]!.message).toMatch(/\$\.note: number 1000.* is not exactly the integer 0/);
    // Before P226: about 20 s on this host for the /verify answer and for /health behind it (quadratic in the
    // zeros: 5 s at 40,000 for one of the two walks). Now milliseconds; 5 s leaves room for a loaded machine.
    expect(elapsedMs).toBeLessThan(5_000);
    expect(healthAfterMs).toBeLessThan(5_000);
  }, 120_000);
});
