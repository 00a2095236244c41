// P208 over HTTP against the real verification service with the /v2 records mounted, on every store dialect. A
// dispute record is signed by its initiator alone (core's rule: `initiator_agent_id`), and nothing looked at the
// respondent it names: an agent with its own verified bundle filed disputes against an id nobody here knows, or
// against itself, and each was stored `verified`. Such a dispute then anchors resolutions (P203 judges a panel by
// the dispute's parties) and violation reports, with a respondent whose keys and principal the service cannot tell.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import { partyOf, startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();
const DISPUTE = '/v2/dispute/record';

describe.each(dialectsUnderTest())('a dispute naming any respondent, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const initiator = partyOf(buildSignedBundle());
  const respondent = partyOf(buildSignedBundle());
  const commissionedOnly = 'agent:p208-commissioned-here';
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 400);
  const dispute = (disputeId: string, respondentId: string) =>
    withFields(example('dispute_record'), {
      dispute_id: disputeId,
      initiator_agent_id: initiator.agentId,
      respondent_agent_id: respondentId,
    });
  const file = (record: Json) =>
    service.post(DISPUTE, signRecord(backend, PROFILES.proto, 'dispute_record', record, initiator.agentKeys));
  const stored = async (disputeId: string) => (await fetch(`${service.url}${DISPUTE}/${disputeId}`)).status;

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-dispute-respondent', {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    });
    for (const party of [initiator, respondent]) {
      const verified = await service.post('/verify', { signed_bundle: party.built.signed_bundle });
      expect(verified.json['verified']).toBe(true);
      expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
    }
    // An agent commissioned here by the operator, with no bundle verified here.
    const certificate = withFields(example('commissioning_certificate'), { agent_id: commissionedOnly });
    const { composite_sig: _sig, ...unsigned } = certificate;
    const commissioned = await service.post('/v2/lifecycle/commission', unsigned, {
      authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
    });
    expect(commissioned.status, shown(commissioned)).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await service?.close();
  });

  it('P208: a signed dispute against an agent unknown here is 409 and not stored', async () => {
    const answer = await file(dispute('dispute:p208-unknown', 'agent:nobody-knows-this-one'));
    expect(answer.status, shown(answer)).toBe(409);
    expect(answer.json).toMatchObject({
      error: { code: 'CONFLICT', details: { respondent_agent_id: 'agent:nobody-knows-this-one' } },
    });
    expect(await stored('dispute:p208-unknown')).toBe(404);
  });

  it('P208: a signed dispute against its own initiator is 400 PROTO-E002 and not stored', async () => {
    const answer = await file(dispute('dispute:p208-self', initiator.agentId));
    expect(answer.status, shown(answer)).toBe(400);
    expect(answer.json).toMatchObject({ error: { code: 'PROTO-E002' } });
    expect(JSON.stringify(answer.json)).toContain('/respondent_agent_id');
    expect(await stored('dispute:p208-self')).toBe(404);
  });

  it('P208: a respondent whose bundle was verified here, or commissioned here, is filed against', async () => {
    for (const [disputeId, respondentId] of [
      ['dispute:p208-verified', respondent.agentId],
      ['dispute:p208-commissioned', commissionedOnly],
    ]) {
      const answer = await file(dispute(disputeId as string, respondentId as string));
      expect(answer.status, shown(answer)).toBe(201);
      expect(answer.json).toMatchObject({ signature: { status: 'verified' } });
    }
  });

  it('P208: the operator files a dispute against an agent of another service (administrative)', async () => {
    const { composite_sig: _sig, ...unsigned } = dispute('dispute:p208-foreign', 'agent:of-another-service');
    const answer = await service.post(DISPUTE, unsigned, { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` });
    expect(answer.status, shown(answer)).toBe(201);
    expect(answer.json).toMatchObject({ signature: { status: 'administrative' } });
  });
});
