// Hostile suite, P225: a key revoked in a revocation list signs nothing that verifies, in V1 as in V2. A V1
// bundle's signer is an Ed25519 key like any V2 signer; its kid (PROTOCOL §4.4) is what a list names.
// P234: with the verdict cache on, a cached analysis of a bundle that kid signed never answers `verified: true`
// again (revocation runs on every hit: D20), and the list naming the kid evicts every analysis the kid signed
// (PROTOCOL §8.3: invalidateByKid on revocation), as a list naming an agent id evicts that agent's
// (revocation-attestation.test.ts).
import { currentList, type RunningService, revoke, startService, tempDir } from '@proto/revocation/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let us: RunningService;
let dir: ReturnType<typeof tempDir>;
let verifier: RunningApp;

const checksOf = (json: Record<string, unknown>) => json['checks'] as Record<string, string>;
const cacheOf = (answer: { headers: Headers }) => answer.headers.get('x-verification-cache');
const detailsOf = (json: Record<string, unknown>) =>
  (json['error_details'] ?? []) as { code: string; check: string; message: string }[];

beforeAll(async () => {
  dir = tempDir('hostile-v1-signer');
  us = await startService({
    dataDir: dir.dir,
    env: { JURISDICTION: 'US', LIST_MAX_AGE_S: '0', LOG_LEVEL: 'warn' },
    timer: false,
  });
  const health = (await (await fetch(`${us.url}/health`)).json()) as Record<string, unknown>;
  const key = health['revocation_public_key_b64'] as string;
  verifier = await startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    // The cache on (the default, said here): P234's point.
    VERIFICATION_CACHE_MAX_ENTRIES: '1000',
    // The default floor (hybrid_preferred) accepts V1 bundles.
    REVOCATION_SOURCES: JSON.stringify({ US: { url: us.listUrl, keys: [key] } }),
  });
});

afterAll(async () => {
  await verifier?.close();
  await us?.close();
  dir?.remove();
});

describe('P225: a revoked key signs no verified V1 bundle', () => {
  it('the principal key whose kid the list revokes fails V1 as it fails V2, also from the cache', async () => {
    const v2 = sampleBundle({ classicalOnly: true, tier: 'routine' });
    const principal = v2.keys.principal;
    const v1 = sampleBundle({ version: '1.0', keys: { principal } });
    // Both verify while the key stands (the V1 analysis is cached by this request).
    for (const sample of [v1, v2]) {
      const { json } = await postVerify(verifier.url, { signed_bundle: sample.signed_bundle });
      expect(json, JSON.stringify(json)).toMatchObject({ verified: true });
    }

    // The key is compromised: the operator revokes its kid, and nothing else (the agents stand).
    expect((await revoke(us, principal.classical.kid)).status).toBe(201);
    expect(JSON.stringify(await currentList(us))).toContain(principal.classical.kid);

    const v2After = await postVerify(verifier.url, { signed_bundle: v2.signed_bundle });
    expect(v2After.json, JSON.stringify(v2After.json)).toMatchObject({ verified: false });
    expect(detailsOf(v2After.json)).toEqual([expect.objectContaining({ code: 'PROTO-E300' })]);

    // Before P225: 200 verified true, `revocation: pass`: a V1 analysis named no signer kid, so only the
    // agent id was looked up and the revoked key went on signing.
    const v1After = await postVerify(verifier.url, { signed_bundle: v1.signed_bundle });
    expect(v1After.status).toBe(200);
    expect(v1After.json, JSON.stringify(v1After.json)).toMatchObject({ verified: false, version: '1.0' });
    expect(checksOf(v1After.json)['revocation']).toBe('fail');
    expect(detailsOf(v1After.json)).toEqual([
      expect.objectContaining({
        code: 'PROTO-E300',
        check: 'revocation',
        message: expect.stringContaining(principal.classical.kid),
      }),
    ]);

    // The same key given as the request's public_key_b64 (a V1 bundle without a signer key, D11).
    const bare = structuredClone(v1.signed_bundle) as Record<string, Record<string, Record<string, unknown>>>;
    const signerKey = bare['signature']!['signer']!['public_key_b64'] as string;
    delete bare['signature']!['signer']!['public_key_b64'];
    const byRequestKey = await postVerify(verifier.url, { signed_bundle: bare, public_key_b64: signerKey });
    expect(byRequestKey.status).toBe(200);
    expect(byRequestKey.json, JSON.stringify(byRequestKey.json)).toMatchObject({ verified: false });
    expect(checksOf(byRequestKey.json)['revocation']).toBe('fail');
  });
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
