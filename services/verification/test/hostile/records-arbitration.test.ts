// P203 over HTTP against the real verification service with the /v2 records mounted, on every store dialect: an
// arbitration resolution was authorised by a key bound to any id it lists in `arbitrator_ids`, so a party to a
// dispute (or anyone) verified its own bundle, named itself arbitrator and resolved the dispute, even one never filed
// here: stored as `verified`.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { partyOf, startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();

type Party = ReturnType<typeof partyOf>;

describe.each(dialectsUnderTest())(
  'an arbitration resolution signed by whoever names itself, on %s',
  (dialect) => {
    let service: VerifierWithRecords;
    const initiator = partyOf(buildSignedBundle());
    const respondent = partyOf(buildSignedBundle());
    const outsider = partyOf(buildSignedBundle());
    const disputeId = 'dispute:p203-filed-here';

    const sign = (kind: string, record: Json, keys: Party['agentKeys']) =>
      signRecord(backend, PROFILES.proto, kind, record, keys);
    const resolution = (disputeIdNamed: string, arbitrators: string[], nonce: string) =>
      withFields(example('arbitration_resolution'), {
        dispute_id: disputeIdNamed,
        arbitrator_ids: arbitrators,
        resolution: `Resolved in favour of whoever signed this (${nonce}).`,
      });
    const resolve = (record: Json, keys: Party['agentKeys']) =>
      service.post('/v2/dispute/arbitration', sign('arbitration_resolution', record, keys));
    const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 400);

    beforeAll(async () => {
      service = await startVerifierWithRecords(dialect, 'v2-arbitration');
      for (const party of [initiator, respondent, outsider]) {
        const verified = await service.post('/verify', { signed_bundle: party.built.signed_bundle });
        expect(verified.json['verified']).toBe(true);
        expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
        expect(await service.keyStatusOnce(party.principalKeys.classical.kid, 200)).toBe(200);
      }
      const dispute = withFields(example('dispute_record'), {
        dispute_id: disputeId,
        initiator_agent_id: initiator.agentId,
        respondent_agent_id: respondent.agentId,
      });
      const filed = await service.post(
        '/v2/dispute/record',
        sign('dispute_record', dispute, initiator.agentKeys),
      );
      expect(filed.status, shown(filed)).toBe(201);
    }, 180_000);
    afterAll(async () => {
      await service?.close();
    });

    it('P203: a party cannot resolve its own dispute by naming itself arbitrator', async () => {
      const answer = await resolve(
        resolution(disputeId, [initiator.agentId], 'initiator'),
        initiator.agentKeys,
      );
      expect(answer.status, shown(answer)).toBe(403);
      expect(answer.json).toMatchObject({ error: { code: 'FORBIDDEN' } });
    });

    it("P203: nor through its principal's key, naming its human", async () => {
      const answer = await resolve(
        resolution(disputeId, [respondent.humanId], 'respondent-principal'),
        respondent.principalKeys,
      );
      expect(answer.status, shown(answer)).toBe(403);
    });

    it('P203: a panel naming a party is refused, whoever of it signs', async () => {
      const answer = await resolve(
        resolution(disputeId, [outsider.agentId, respondent.agentId], 'party-on-panel'),
        outsider.agentKeys,
      );
      expect(answer.status, shown(answer)).toBe(403);
    });

    it('P203: a resolution of a dispute not filed here is refused', async () => {
      const answer = await resolve(
        resolution('dispute:p203-never-filed', [outsider.agentId], 'unfiled'),
        outsider.agentKeys,
      );
      expect(answer.status, shown(answer)).toBe(409);
      expect(answer.json).toMatchObject({ error: { code: 'CONFLICT' } });
    });

    it('P203: an arbitrator outside the dispute still signs its resolution (who appoints it is open)', async () => {
      const answer = await resolve(resolution(disputeId, [outsider.agentId], 'outsider'), outsider.agentKeys);
      expect(answer.status, shown(answer)).toBe(201);
      expect(answer.json).toMatchObject({ signature: { status: 'verified' } });
    });
  },
);
