// P456 (brief "readers3" item 4): /v2 record ids that a person cannot tell from another (agent ids, dispute ids,
// arbitrator ids…) get no look-alike warning because none is stored: SPEC.md Limits puts every id of a /v2 record
// under `^[\w:.\-]{1,256}$` (ASCII `\w`), the schemas pattern each single id and P374 each `arbitrator_ids` item, so a
// Cyrillic letter, an invisible character, a decomposed accent or a fullwidth letter is a 400 before anything is
// stored or answered. This test holds that defence for each kind of id the brief names, written with the operator
// token (an administrative write: no signature stands in the way, only the id rules). Look-alikes within ASCII (`I`
// for `l`, `0` for `O`) pass the pattern: see P455 for why they are not warned about here.
import { buildSignedBundle } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import { partyOf, startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const LOOK_ALIKES: readonly (readonly [string, string])[] = [
  ['a Cyrillic а', 'agent-\u0430lpha-0001'],
  ['a zero-width space', 'agent-al\u200bpha-0001'],
  ['a right-to-left override', 'agent-\u202ealpha-0001'],
  ['a decomposed é', 'agent-e\u0301-0001'],
  ['a fullwidth ａ', 'agent-\uff41lpha-0001'],
];

describe.each(dialectsUnderTest())(
  'P456: /v2 record ids are ASCII, so no look-alike is stored, on %s',
  (dialect) => {
    let service: VerifierWithRecords;
    const party = partyOf(buildSignedBundle());
    beforeAll(async () => {
      service = await startVerifierWithRecords(dialect, 'readers3-record-ids', {
        OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      });
    });
    afterAll(async () => {
      await service?.close();
    });

    const refused = async (path: string, record: Json, getPath: string) => {
      const answer = await service.post(path, record, OPERATOR);
      expect(answer.status, JSON.stringify(answer.json).slice(0, 300)).toBe(400);
      const error = answer.json['error'] as { code: string; message: string };
      // RECORDS.md: an id of a record outside the pattern is PROTO-E002 (D14; `details.reason` INVALID_ID, P518).
      expect(error.code).toBe('PROTO-E002');
      const res = await fetch(`${service.url}${getPath}`);
      await res.arrayBuffer();
      expect([400, 404]).toContain(res.status); // nothing stored under it (a path id is refused as such)
    };

    it.each(LOOK_ALIKES)('an agent id with %s (commissioning certificate): 400', async (_what, id) => {
      const record = withFields(example('commissioning_certificate'), {
        agent_id: id,
        human_id: party.humanId,
      });
      await refused('/v2/lifecycle/commission', record, `/v2/lifecycle/commission/${encodeURIComponent(id)}`);
    });

    it.each(LOOK_ALIKES)('a dispute id with %s (dispute record): 400', async (_what, id) => {
      const record = withFields(example('dispute_record'), { dispute_id: id });
      await refused('/v2/dispute/record', record, `/v2/dispute/record/${encodeURIComponent(id)}`);
    });

    it.each(LOOK_ALIKES)('an arbitrator id with %s (arbitration resolution): 400', async (_what, id) => {
      const record = withFields(example('arbitration_resolution'), {
        dispute_id: 'dispute-readers3-0001',
        arbitrator_ids: [id],
      });
      await refused('/v2/dispute/arbitration', record, '/v2/dispute/arbitration/dispute-readers3-0001');
    });

    it('control: the same records with plain ids are read past the id rules', async () => {
      const record = withFields(example('commissioning_certificate'), {
        agent_id: 'agent-alpha-0001',
        human_id: party.humanId,
      });
      const answer = await service.post('/v2/lifecycle/commission', record, OPERATOR);
      // Stored (201) or refused for another reason than its id; never INVALID_ID.
      expect(JSON.stringify(answer.json)).not.toMatch(/must match|INVALID_ID|\^\[\\\\w/);
    });
  },
);
