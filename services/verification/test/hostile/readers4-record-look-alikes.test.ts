// P519 (brief "readers4" item 3): a /v2 id that reads as a stored id of the same kind. Every /v2 id is ASCII (SPEC.md
// Limits, P456), but within ASCII `dispute-1001` and `dispute-l00l`, `mandate-m` and `mandate-rn` are two ids a person
// takes for one: a dispute, a mandate or an agent's certificate filed under the look-alike of another's was stored
// with not a word. Decided: a warning on the write's answer (`warnings`), not a refusal: a refusal would let whoever
// writes first an id's look-alike keep its rightful holder out (each writer signs for its own ids only). Written with
// the operator token so only the id is in question; on SQLite and PostgreSQL.
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };

describe.each(dialectsUnderTest())(
  'P519: a /v2 id reading as a stored one of its kind is named, on %s',
  (dialect) => {
    let service: VerifierWithRecords;
    beforeAll(async () => {
      service = await startVerifierWithRecords(dialect, 'readers4-record-look-alikes', {
        OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      });
    }, 60_000);
    afterAll(async () => {
      await service?.close();
    });

    const dispute = (id: string) => withFields(example('dispute_record'), { dispute_id: id });

    it('a dispute filed as `dispute-l00I-rn` beside `dispute-1001-m`: stored, with a warning naming the stored id', async () => {
      const first = await service.post('/v2/dispute/record', dispute('dispute-1001-m'), OPERATOR);
      expect(first.status, JSON.stringify(first.json)).toBe(201);
      expect(first.json['warnings']).toBeUndefined();
      const twin = await service.post('/v2/dispute/record', dispute('dispute-l00I-rn'), OPERATOR);
      expect(twin.status, JSON.stringify(twin.json)).toBe(201);
      expect(twin.json['warnings']).toEqual([
        'dispute_record id "dispute-l00I-rn" reads the same as the stored "dispute-1001-m": check which one is meant (look-alike id; stored, not a failure)',
      ]);
    });

    it('a look-alike written through another replica after this one read the kind: still named', async () => {
      const other = await service.secondReplica();
      const first = await service.post('/v2/dispute/record', dispute('dispute-3m-01'), OPERATOR);
      expect(first.status).toBe(201);
      const res = await fetch(`${other}/v2/dispute/record`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...OPERATOR },
        body: JSON.stringify(dispute('dispute-3rn-Ol')),
      });
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(body['warnings']).toEqual([
        expect.stringContaining('reads the same as the stored "dispute-3m-01"'),
      ]);
      // And the other way round: this replica had read the kind before the other's write.
      const back = await service.post('/v2/dispute/record', dispute('dispute-3rn-0I'), OPERATOR);
      expect(back.json['warnings']).toEqual([
        expect.stringContaining('"dispute-3m-01"'),
        expect.stringContaining('"dispute-3rn-Ol"'),
      ]);
    });

    it('control: an id no stored one reads as, a re-post, and another kind with the look-alike id: no warning', async () => {
      const plain = await service.post('/v2/dispute/record', dispute('dispute-2222-x'), OPERATOR);
      expect(plain.status).toBe(201);
      expect(plain.json['warnings']).toBeUndefined();
      const again = await service.post('/v2/dispute/record', dispute('dispute-2222-x'), OPERATOR);
      expect(again.status).toBe(200);
      expect(again.json['warnings']).toBeUndefined();
      const mandate = withFields(example('delegation_mandate'), { mandate_id: 'dispute-1OOl-m' });
      const other = await service.post('/v2/delegation/mandate', mandate, OPERATOR);
      expect(other.status, JSON.stringify(other.json)).toBe(201);
      expect(other.json['warnings']).toBeUndefined();
    });
  },
);
