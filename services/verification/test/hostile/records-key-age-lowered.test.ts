// P230 over HTTP against the real verification service: an operator lowers MAX_KEY_AGE_DAYS (say, to cut off keys
// old enough to have leaked) and restarts the service on the same store. A key bound under the old, longer age is
// one /verify now refuses as a signer, so it must stop signing /v2 records at once, not when its binding is pruned.
import {
  type BundleKeySet,
  createNativeBackend,
  generateBundleKeys,
  PROFILES,
  signRecord,
} from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import {
  bundleListing,
  partyOf,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const backend = createNativeBackend();
const DAY = 86_400_000;

describe.each(dialectsUnderTest())('a lowered maximum key age on %s', (dialect) => {
  let service: VerifierWithRecords | undefined;
  afterAll(async () => {
    await service?.close();
  });

  it('a key bound under a longer age signs no record once the age is lowered below its own; a young one does', async () => {
    const old = generateBundleKeys(backend, { pq: false });
    const young = generateBundleKeys(backend, { pq: false });
    const now = Date.now();
    const built = bundleListing([
      { keys: old, createdAt: new Date(now - 40 * DAY).toISOString() },
      { keys: young, createdAt: new Date(now - DAY).toISOString() },
    ]);
    const { agentId, humanId } = partyOf(built);
    const commission = (keys: BundleKeySet) =>
      signRecord(
        backend,
        PROFILES.proto,
        'commissioning_certificate',
        withFields(example('commissioning_certificate'), { agent_id: agentId, human_id: humanId }),
        { classical: keys.classical },
      );

    // Under a 60-day age the 40-day-old key is one /verify accepts, and the directory binds it.
    service = await startVerifierWithRecords(dialect, 'v2-key-age-lowered', { MAX_KEY_AGE_DAYS: '60' });
    const verdict = await service.post('/verify', { signed_bundle: built.signed_bundle });
    expect(verdict.json['verified'], JSON.stringify(verdict.json)).toBe(true);
    expect(await service.keyStatusOnce(old.classical.kid, 200)).toBe(200);

    // The operator lowers the age to 30 days and restarts on the same store.
    await service.restart({ MAX_KEY_AGE_DAYS: '30' });
    expect(await service.keyStatus(old.classical.kid)).toBe(404);
    const byOld = await service.post('/v2/lifecycle/commission', commission(old));
    expect(byOld.status, JSON.stringify(byOld.json)).toBe(403);
    // Control: the young key bound beside it still signs.
    expect(await service.keyStatus(young.classical.kid)).toBe(200);
    const byYoung = await service.post('/v2/lifecycle/commission', commission(young));
    expect(byYoung.status, JSON.stringify(byYoung.json)).toBe(201);
    expect((byYoung.json['signature'] as Json)['status']).toBe('verified');
  });
});
