// P566 over HTTP against the real verification service with the /v2 records mounted, on every store dialect. P537
// made a dispute filing hold its respondent's key bindings against pruning (so the respondent's principals stay
// parties, P375), in the key directory's permanent holds: any agent with a verified bundle could keep any known agent's
// bindings for good by filing disputes naming it, as many as it liked. The service prunes idle bindings after two
// seconds (KEY_DIRECTORY_PRUNE_AFTER_SECONDS) and lets one filer hold two unsettled disputes.
import { buildSignedBundle } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, withFields } from '../../src/records/test-support.ts';
import {
  OPERATOR,
  type PanelFixture,
  partyOf,
  startPanelFixture,
  verifyParty,
} from './verifier-with-records.ts';

type Party = ReturnType<typeof partyOf>;

describe.each(dialectsUnderTest())("a dispute's hold of its respondent's keys, on %s", (dialect) => {
  let f: PanelFixture;
  // Not the fixture's initiator: that one was verified as the service started, and is pruned long before it files.
  const initiator = partyOf(buildSignedBundle());

  beforeAll(async () => {
    f = await startPanelFixture(dialect, 'v2-dispute-holds', {
      KEY_DIRECTORY_PRUNE_AFTER_SECONDS: '2',
      KEY_DIRECTORY_PRUNE_INTERVAL_SECONDS: '1',
      RECORDS_DISPUTE_HOLDS_PER_FILER: '2',
    });
  }, 180_000);
  afterAll(async () => {
    await f?.service.close();
  });

  /** A party of a fresh bundle, verified here now (its bindings are pruned once idle for two seconds). */
  const verified = (party: Party = partyOf(buildSignedBundle())) => verifyParty(f.service, party);
  const filing = (id: string, respondent: Party) =>
    f.sign(
      'dispute_record',
      withFields(example('dispute_record'), {
        dispute_id: id,
        initiator_agent_id: initiator.agentId,
        respondent_agent_id: respondent.agentId,
      }),
      initiator.agentKeys,
    );
  /** The initiator (verified again, in case its key was never used yet) files `id` against `respondent`. */
  const file = async (id: string, respondent: Party) => {
    await verified(initiator);
    return f.service.post('/v2/dispute/record', filing(id, respondent));
  };
  const settle = async (id: string) => {
    const resolution = withFields(example('arbitration_resolution'), { dispute_id: id });
    const settled = await f.resolve(resolution, OPERATOR);
    expect(settled.status, f.shown(settled)).toBe(201);
  };

  it("P566: a settled dispute releases its respondent's keys to pruning", async () => {
    const respondent = await verified();
    const id = 'dispute:p566-released';
    const filed = await file(id, respondent);
    expect(filed.status, f.shown(filed)).toBe(201);
    // A party verified after the respondent and never used: once pruned, a run reached the respondent's rows too.
    const canary = await verified();
    expect(await f.service.keyStatusOnce(canary.agentKeys.classical.kid, 404, 15_000)).toBe(404);
    // P537 still: while the dispute is open, its respondent's idle bindings are held.
    expect(await f.service.keyStatus(respondent.agentKeys.classical.kid)).toBe(200);

    await settle(id);
    // Before P566: held for good, "timed out after 15000 ms waiting for /v2/keys/<kid> to answer 404".
    expect(await f.service.keyStatusOnce(respondent.agentKeys.classical.kid, 404, 15_000)).toBe(404);
  });

  it('P566: one filer holds at most RECORDS_DISPUTE_HOLDS_PER_FILER unsettled disputes; a settled one frees its place', async () => {
    for (const n of [1, 2]) {
      const filed = await file(`dispute:p566-open-${n}`, await verified());
      expect(filed.status, f.shown(filed)).toBe(201);
    }
    const refused = await file('dispute:p566-third', await verified());
    // Before P566: 201, each filing one more permanent hold.
    expect(refused.status, f.shown(refused)).toBe(409);
    expect(refused.json, f.shown(refused)).toMatchObject({
      error: {
        code: 'CONFLICT',
        details: { reason: 'too_many_unsettled_disputes', initiator_agent_id: initiator.agentId, limit: 2 },
      },
    });
    expect((await fetch(`${f.service.url}/v2/dispute/record/dispute:p566-third`)).status).toBe(404);

    await settle('dispute:p566-open-1');
    const next = await file('dispute:p566-next', await verified());
    expect(next.status, f.shown(next)).toBe(201);
    // The operator's filings are not counted (D22).
    const byOperator = await f.service.post(
      '/v2/dispute/record',
      withFields(example('dispute_record'), {
        dispute_id: 'dispute:p566-operator',
        initiator_agent_id: initiator.agentId,
        respondent_agent_id: (await verified()).agentId,
      }),
      OPERATOR,
    );
    expect(byOperator.status, f.shown(byOperator)).toBe(201);
    for (const id of ['dispute:p566-open-2', 'dispute:p566-next', 'dispute:p566-operator']) await settle(id);
  });
});
