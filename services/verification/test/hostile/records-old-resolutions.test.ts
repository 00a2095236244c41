// P266 over HTTP: a resolution stored before P240 (under a content id) is the dispute's after migration 0018, so a
// different resolution of that dispute is 409 and GET by the dispute id answers the old one.
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const disputeId = 'dispute:p266-old-store';
const resolution = (text: string): Json =>
  withFields(example('arbitration_resolution'), { dispute_id: disputeId, resolution: text });

describe.each(dialectsUnderTest())('resolutions stored before P240, over HTTP on %s', (dialect) => {
  let service: VerifierWithRecords;
  const old = resolution('Stored by a release before P240.');

  beforeAll(async () => {
    service = await startVerifierWithRecords(
      dialect,
      'v2-old-resolutions',
      { OPERATOR_TOKEN: TEST_OPERATOR_TOKEN },
      async (store) => {
        await store.records.put('arbitration_resolution', 'sha256:0ld', old);
        // The store as a release before migration 0018 left it.
        await store.db
          .deleteFrom('store_migrations')
          .where('name', '=', '0018_resolutions_by_dispute')
          .execute();
      },
    );
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('P266: a different resolution of a dispute resolved by an old store is 409; the old one is found by the dispute id', async () => {
    const second = await service.post('/v2/dispute/arbitration', resolution('A second one.'), {
      authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
    });
    expect(second.status, JSON.stringify(second.json).slice(0, 300)).toBe(409);
    expect(second.json).toMatchObject({ error: { code: 'CONFLICT' } });
    const found = await fetch(`${service.url}/v2/dispute/arbitration/${disputeId}`);
    expect(found.status).toBe(200);
    expect(((await found.json()) as Json)['record']).toEqual(old);
  });
});
