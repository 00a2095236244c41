// A receipt's log_url chooses which configured log is asked, never more (P154): the real verification service
// over HTTP, ANCHOR_VERIFY_LOG_URL naming one path of a host, and receipts whose log_url climbs out of that path
// with dot segments. The URL a fetch would really ask (`/v1/../evil` is `/evil`) is what must be configured.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let host: Server;
let base: string;
/** Requests outside the configured /v1 path: another tenant of the same host. */
let outside = 0;
let verifier: RunningApp;
const sample = sampleBundle({});

beforeAll(async () => {
  host = createServer((req, res) => {
    if (!(req.url ?? '').startsWith('/v1/')) outside += 1;
    // Whatever is asked: a proof answer that would make the attacker's receipt pass if it were trusted.
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ proof: [] }));
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(host.address() as { port: number }).port}`;
  verifier = await startApp({
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_LOG_URL: `${base}/v1`,
    ANCHOR_VERIFY_CACHE_MAX_ENTRIES: '0',
  });
});

afterAll(async () => {
  await verifier?.close();
  host?.closeAllConnections();
  await new Promise<void>((resolve) => (host ? host.close(() => resolve()) : resolve()));
});

describe('P154: a receipt cannot steer the verifier outside the configured log path', () => {
  for (const climb of ['/v1/../evil', '/v1/%2e%2e/evil', '/v1/./../evil']) {
    it(`log_url ${climb}: skipped as not configured, the host asked nothing outside /v1`, async () => {
      const before = outside;
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
      expect(outside - before).toBe(0);
    });
  }
});
