// Hostile suite, P234: a signer kid revoked in the revocation list the service consults. A cached analysis of
// a bundle that kid signed never answers `verified: true` again (revocation runs on every hit: D20), and the
// list naming the kid evicts every analysis the kid signed (PROTOCOL §8.3: invalidateByKid on revocation),
// V1 and V2 alike, as a list naming an agent id evicts that agent's (revocation-attestation.test.ts).
import { currentList, type RunningService, revoke, startService, tempDir } from '@proto/revocation/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let us: RunningService;
let dir: ReturnType<typeof tempDir>;
let verifier: RunningApp;

const cacheOf = (answer: { headers: Headers }) => answer.headers.get('x-verification-cache');
const checksOf = (json: Record<string, unknown>) => json['checks'] as Record<string, string>;

beforeAll(async () => {
  dir = tempDir('hostile-cache-kid');
  // max-age 0: every check revalidates, so the verifier reads the list the operator just changed.
  us = await startService({
    dataDir: dir.dir,
    env: { JURISDICTION: 'US', LIST_MAX_AGE_S: '0', LOG_LEVEL: 'warn' },
    timer: false,
  });
  const health = (await (await fetch(`${us.url}/health`)).json()) as Record<string, unknown>;
  verifier = await startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    // The cache on (the default, said here): the point of the test.
    VERIFICATION_CACHE_MAX_ENTRIES: '1000',
    REVOCATION_SOURCES: JSON.stringify({
      US: { url: us.listUrl, keys: [health['revocation_public_key_b64'] as string] },
    }),
  });
});

afterAll(async () => {
  await verifier?.close();
  await us?.close();
  dir?.remove();
});

describe('P234: a revoked signer kid and the verdict cache', () => {
  it('a cached valid analysis answers revoked at the next request, and the kid evicts it (V2 and V1)', async () => {
    const v2 = sampleBundle({ tier: 'standard' });
    const principal = v2.keys.principal;
    const v1 = sampleBundle({ version: '1.0', keys: { principal } });
    const requests = [v1, v2].map((sample) => ({ signed_bundle: sample.signed_bundle }));
    for (const request of requests) {
      const miss = await postVerify(verifier.url, request);
      expect(cacheOf(miss)).toBe('miss');
      expect(miss.json, JSON.stringify(miss.json)).toMatchObject({ verified: true });
      const hit = await postVerify(verifier.url, request);
      expect(cacheOf(hit)).toBe('hit');
      expect(hit.json['verified']).toBe(true);
    }
    const cachedBefore = verifier.app.verificationCache.size;

    // The operator revokes the compromised key's kid, and nothing else (the agents stand).
    expect((await revoke(us, principal.classical.kid)).status).toBe(201);
    expect(JSON.stringify(await currentList(us))).toContain(principal.classical.kid);

    // The next request is answered from the cached analysis, and revoked: the list is read on every hit.
    const seen = await postVerify(verifier.url, requests[0]);
    expect(cacheOf(seen)).toBe('hit');
    expect(seen.json, JSON.stringify(seen.json)).toMatchObject({ verified: false });
    expect(checksOf(seen.json)['revocation']).toBe('fail');
    expect(seen.json['error_details']).toEqual([
      expect.objectContaining({
        code: 'PROTO-E300',
        message: expect.stringContaining(principal.classical.kid),
      }),
    ]);

    // The list naming the kid evicted both analyses it signed (before P234: none; the next answers were hits,
    // the entries held until their TTL, because a list entry was only ever looked up as an agent id).
    expect(verifier.app.verificationCache.size).toBe(cachedBefore - 2);
    for (const request of requests) {
      const after = await postVerify(verifier.url, request);
      expect(cacheOf(after)).toBe('miss');
      expect(after.json, JSON.stringify(after.json)).toMatchObject({ verified: false });
      expect(checksOf(after.json)['revocation']).toBe('fail');
      // Analysed again and cached again: still revoked from the cache, the list read afresh.
      const again = await postVerify(verifier.url, request);
      expect(cacheOf(again)).toBe('hit');
      expect(again.json['verified']).toBe(false);
    }
  });
});
