// P241 over HTTP against the real verification service with the /v2 records mounted, on every store dialect. An
// arbitration resolution names its own panel (`arbitrator_ids`), and P203 refused only a panel with a party on it: any
// outsider whose bundle verified here named itself arbitrator of a dispute between two others and resolved it,
// `verified`, even on a service whose operator says who arbitrates. RECORDS_ARBITRATORS is that statement: with it
// set, a key-signed resolution's panel is appointed arbitrators only. A dispute's escalation level never goes back:
// the dispute record is never replaced (D14), and no route escalates it.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { partyOf, startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();
type Party = ReturnType<typeof partyOf>;

describe.each(dialectsUnderTest())('arbitrators the operator appointed, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const initiator = partyOf(buildSignedBundle());
  const respondent = partyOf(buildSignedBundle());
  const appointed = partyOf(buildSignedBundle());
  const outsider = partyOf(buildSignedBundle());
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 400);
  const sign = (kind: string, record: Json, party: Party) =>
    signRecord(backend, PROFILES.proto, kind, record, party.agentKeys);
  const dispute = (disputeId: string, level: string) =>
    sign(
      'dispute_record',
      withFields(example('dispute_record'), {
        dispute_id: disputeId,
        initiator_agent_id: initiator.agentId,
        respondent_agent_id: respondent.agentId,
        escalation_level: level,
      }),
      initiator,
    );
  const resolve = (disputeId: string, panel: string[], signer: Party) =>
    service.post(
      '/v2/dispute/arbitration',
      sign(
        'arbitration_resolution',
        withFields(example('arbitration_resolution'), {
          dispute_id: disputeId,
          arbitrator_ids: panel,
          resolution: `Resolved by ${signer.agentId}.`,
        }),
        signer,
      ),
    );

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-arbitrator-appointment', {
      RECORDS_ARBITRATORS: `agent:not-here-9, ${appointed.agentId}`,
    });
    for (const party of [initiator, respondent, appointed, outsider]) {
      expect(
        (await service.post('/verify', { signed_bundle: party.built.signed_bundle })).json['verified'],
      ).toBe(true);
      expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
    }
    for (const id of ['dispute:p241-outsider', 'dispute:p241-mixed', 'dispute:p241-appointed']) {
      const filed = await service.post('/v2/dispute/record', dispute(id, 'contextual_arbitration'));
      expect(filed.status, shown(filed)).toBe(201);
    }
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('P241: an outsider who names itself arbitrator is 403 when the operator appointed others', async () => {
    const answer = await resolve('dispute:p241-outsider', [outsider.agentId], outsider);
    expect(answer.status, shown(answer)).toBe(403);
    expect(answer.json).toMatchObject({
      error: { code: 'FORBIDDEN', details: { arbitrator: outsider.agentId } },
    });
    expect((await fetch(`${service.url}/v2/dispute/arbitration/dispute:p241-outsider`)).status).toBe(404);
  });

  it('P241: an appointed arbitrator does not seat an outsider beside it', async () => {
    const answer = await resolve('dispute:p241-mixed', [appointed.agentId, outsider.agentId], appointed);
    expect(answer.status, shown(answer)).toBe(403);
  });

  it('P241: an appointed arbitrator resolves the dispute, verified', async () => {
    const answer = await resolve('dispute:p241-appointed', [appointed.agentId], appointed);
    expect(answer.status, shown(answer)).toBe(201);
    expect(answer.json).toMatchObject({ signature: { status: 'verified' } });
  });

  it("P241: a dispute's escalation level does not go back: the dispute is never re-filed lower", async () => {
    const lower = await service.post(
      '/v2/dispute/record',
      dispute('dispute:p241-appointed', 'direct_negotiation'),
    );
    expect(lower.status, shown(lower)).toBe(409);
    const stored = await fetch(`${service.url}/v2/dispute/record/dispute:p241-appointed`);
    expect((((await stored.json()) as Json)['record'] as Json)['escalation_level']).toBe(
      'contextual_arbitration',
    );
  });
});
