// A receipt's log_url chooses which configured log is asked, never more (P154): the real verification service
// over HTTP, ANCHOR_VERIFY_LOG_URL naming one path of a host, and receipts whose log_url climbs out of that path
// with dot segments. The URL a fetch would really ask (`/v1/../evil` is `/evil`) is what must be configured.
import { answerJson, type HostileFront, startHostileFront } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

/** A host whose /v1 path is the configured log; anything outside it is another tenant of the same host. */
let host: HostileFront;
let base: string;
/** Requests outside the configured /v1 path. */
const outside = () => host.requests.filter((request) => !request.url.startsWith('/v1/')).length;
let verifier: RunningApp;
const sample = sampleBundle({});

beforeAll(async () => {
  // Whatever is asked: a proof answer that would make the attacker's receipt pass if it were trusted.
  host = await startHostileFront((_request, res) => answerJson(res, 200, { proof: [] }));
  base = host.url;
  verifier = await startApp({
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_LOG_URL: `${base}/v1`,
    ANCHOR_VERIFY_CACHE_MAX_ENTRIES: '0',
  });
});

afterAll(async () => {
  await verifier?.close();
  await host?.close();
});

describe('P154: a receipt cannot steer the verifier outside the configured log path', () => {
  for (const climb of ['/v1/../evil', '/v1/%2e%2e/evil', '/v1/./../evil']) {
    it(`log_url ${climb}: skipped as not configured, the host asked nothing outside /v1`, async () => {
      const before = outside();
      const { json } = await postVerify(verifier.url, {
        signed_bundle: sample.signed_bundle,
        anchor_receipt: {
          bundle_hash: sample.bundleHash,
          log_url: `${base}${climb}`,
          log_index: 0,
          merkle_proof: [],
        },
      });
      expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
      expect(String(json['warnings'])).toMatch(/not among the logs this verifier may call/);
      expect(outside() - before).toBe(0);
    });
  }
});
