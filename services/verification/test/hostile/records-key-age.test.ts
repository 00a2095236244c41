// P204 over HTTP against the real verification service: a passport may list an active key it never used that is
// older than the operator's maximum key age. /verify would refuse that key
// as a signer, so the key directory must not let it sign a /v2 record either.
import { type BundleKeySet, createNativeBackend, generateBundleKeys } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../src/records/test-support.ts';
import {
  bundleListing,
  commissioningCertificate,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const backend = createNativeBackend();
const DAY = 86_400_000;
const MAX_AGE_DAYS = 30;

describe.each(dialectsUnderTest())('key age in the key directory on %s', (dialect) => {
  let verifier: VerifierWithRecords;
  beforeAll(async () => {
    verifier = await startVerifierWithRecords(dialect, 'v2-key-age', {
      MAX_KEY_AGE_DAYS: String(MAX_AGE_DAYS),
    });
  });
  afterAll(async () => {
    await verifier?.close();
  });

  it('an unused listed key past the maximum age signs no record; a young one does', async () => {
    const old = generateBundleKeys(backend, { pq: false });
    const young = generateBundleKeys(backend, { pq: false });
    const now = Date.now();
    const built = bundleListing([
      { keys: old, createdAt: new Date(now - (MAX_AGE_DAYS + 10) * DAY).toISOString() },
      { keys: young, createdAt: new Date(now - DAY).toISOString() },
    ]);
    const answer = await verifier.post('/verify', { signed_bundle: built.signed_bundle });
    expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(true);
    const bundle = built.signed_bundle['bundle'] as Json;
    const agentId = ((bundle['agent_passport'] as Json)['payload'] as Json)['agent_id'] as string;
    const humanId = ((bundle['responsible_principal_record'] as Json)['payload'] as Json)[
      'human_id'
    ] as string;
    expect(await verifier.keyStatusOnce(young.classical.kid, 200)).toBe(200);

    const commission = (keys: BundleKeySet) => commissioningCertificate({ agentId, humanId }, keys);
    const byOld = await verifier.post('/v2/lifecycle/commission', commission(old));
    expect(byOld.status, JSON.stringify(byOld.json)).toBe(403);
    expect(await verifier.keyStatus(old.classical.kid)).toBe(404);
    // Control: the young key listed beside them signs.
    const byYoung = await verifier.post('/v2/lifecycle/commission', commission(young));
    expect(byYoung.status, JSON.stringify(byYoung.json)).toBe(201);
    expect((byYoung.json['signature'] as Json)['status']).toBe('verified');
  });
});
