// P295–P296 over HTTP against the real verification service with the /v2 records mounted, on every store dialect.
// A dispute record is signed and never rewritten (D14), so once its resolution was stored here GET of the dispute
// still said `open`: whoever read the dispute was told it was unresolved. And a dispute filed `appealed` whose
// resolution was already here (the decision appealed) had nowhere to take the appeal's outcome: every different
// resolution of it was 409.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import { partyOf, startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();
type Party = ReturnType<typeof partyOf>;
const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };

describe.each(dialectsUnderTest())('a dispute tells what became of it, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const initiator = partyOf(buildSignedBundle());
  const respondent = partyOf(buildSignedBundle());
  const arbiter = partyOf(buildSignedBundle());

  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 400);
  const sign = (kind: string, record: Json, party: Party) =>
    signRecord(backend, PROFILES.proto, kind, record, party.agentKeys);
  const get = async (path: string) => {
    const res = await fetch(`${service.url}${path}`);
    return { status: res.status, json: (await res.json()) as Json };
  };
  const dispute = (id: string, fields: Json = {}) =>
    sign(
      'dispute_record',
      withFields(example('dispute_record'), {
        dispute_id: id,
        initiator_agent_id: initiator.agentId,
        respondent_agent_id: respondent.agentId,
        ...fields,
      }),
      initiator,
    );
  const resolution = (id: string, text: string, timestamp = '2026-06-03T16:00:00Z') =>
    sign(
      'arbitration_resolution',
      withFields(example('arbitration_resolution'), {
        dispute_id: id,
        arbitrator_ids: [arbiter.agentId],
        resolution: text,
        timestamp,
      }),
      arbiter,
    );

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-dispute-state', {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    });
    for (const party of [initiator, respondent, arbiter]) {
      expect(
        (await service.post('/verify', { signed_bundle: party.built.signed_bundle })).json['verified'],
      ).toBe(true);
      expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
    }
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('P295: a resolved dispute answers resolved, by its resolution, and its signed record unchanged', async () => {
    const id = 'dispute:p295-resolved-here';
    const filed = dispute(id);
    expect((await service.post('/v2/dispute/record', filed)).status).toBe(201);
    const before = await get(`/v2/dispute/record/${id}`);
    expect(before.json).toMatchObject({ state: 'open' });
    expect(before.json['resolution']).toBeUndefined();

    const resolved = await service.post('/v2/dispute/arbitration', resolution(id, 'Split the ledger.'));
    expect(resolved.status, shown(resolved)).toBe(201);

    const after = await get(`/v2/dispute/record/${id}`);
    expect(after.status, shown(after)).toBe(200);
    expect(after.json).toMatchObject({
      state: 'resolved',
      resolution: { id, stored_at: resolved.json['stored_at'] },
    });
    // The signed filing is as it was signed: its own `status` still says what the initiator filed.
    expect(after.json['record']).toEqual(filed);
    expect(after.json['stored_at']).toBe(before.json['stored_at']);
    // A re-post of the filing answers what the dispute has become, too.
    const again = await service.post('/v2/dispute/record', filed);
    expect(again.status, shown(again)).toBe(200);
    expect(again.json).toMatchObject({ state: 'resolved', resolution: { id } });
  });

  it('P295: a dispute filed resolved, with no resolution here, answers its filed status and no resolution', async () => {
    const id = 'dispute:p295-filed-resolved';
    expect((await service.post('/v2/dispute/record', dispute(id, { status: 'resolved' }))).status).toBe(201);
    const found = await get(`/v2/dispute/record/${id}`);
    expect(found.json).toMatchObject({ state: 'resolved' });
    expect(found.json['resolution']).toBeUndefined();
  });

  it('P296: an appealed dispute whose decision is here takes one appeal outcome, dated after it', async () => {
    const id = 'dispute:p296-appealed';
    // The decision appealed: the operator's, stored before the dispute was filed here (D22, P267).
    const decision = resolution(id, 'The initiator keeps the ledger.', '2026-06-02T09:00:00Z');
    const first = await service.post('/v2/dispute/arbitration', decision, OPERATOR);
    expect(first.status, shown(first)).toBe(201);
    const filed = await service.post(
      '/v2/dispute/record',
      dispute(id, { status: 'appealed', escalation_level: 'human_appeal' }),
    );
    expect(filed.status, shown(filed)).toBe(201);

    const backdated = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, 'On appeal: split it.', '2026-06-02T08:59:59Z'),
    );
    expect(backdated.status, shown(backdated)).toBe(409);
    expect(backdated.json).toMatchObject({ error: { code: 'CONFLICT', details: { dispute_id: id } } });

    const outcome = resolution(id, 'On appeal: split it.', '2026-06-05T12:00:00Z');
    const stored = await service.post('/v2/dispute/arbitration', outcome);
    expect(stored.status, shown(stored)).toBe(201);
    expect(stored.json).toMatchObject({ id, appeal_outcome: true, signature: { status: 'verified' } });
    expect((await service.post('/v2/dispute/arbitration', outcome)).status).toBe(200); // idempotent
    expect((await service.post('/v2/dispute/arbitration', decision, OPERATOR)).status).toBe(200);

    const another = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, 'On appeal: the respondent keeps it.', '2026-06-06T12:00:00Z'),
    );
    expect(another.status, shown(another)).toBe(409);

    const resolutionAnswer = await get(`/v2/dispute/arbitration/${id}`);
    expect(resolutionAnswer.json['record']).toEqual(decision);
    expect(resolutionAnswer.json).toMatchObject({ appeal_outcome: { record: outcome } });
    const disputeAnswer = await get(`/v2/dispute/record/${id}`);
    expect(disputeAnswer.json).toMatchObject({
      state: 'resolved',
      resolution: { id },
      appeal_outcome: { stored_at: stored.json['stored_at'] },
    });
  });

  it('P296: a dispute resolved here and not filed appealed takes no second resolution', async () => {
    const id = 'dispute:p296-not-appealed';
    expect((await service.post('/v2/dispute/record', dispute(id))).status).toBe(201);
    expect((await service.post('/v2/dispute/arbitration', resolution(id, 'Split it.'))).status).toBe(201);
    const second = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, 'Split it otherwise.', '2026-06-07T12:00:00Z'),
    );
    expect(second.status, shown(second)).toBe(409);
  });
});
