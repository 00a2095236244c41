// P238–P240 over HTTP against the real verification service with the /v2 records mounted, on every store dialect.
// Agents holding their own verified bundles (their keys bound here) sign their own records, and each record's own
// signed time, or its place beside the records before it, was not what the service kept:
// - a decommissioning record's signed `timestamp` was not what the lifecycle history recorded (the store's clock was),
//   so the history said the agent stopped counting at another time than its principal signed, and a decommissioning
//   dated before the agent's latest move was stored (P207's floor did not see its time);
// - a vitality report dated before the agent's latest report, or before its commissioning, was appended to the chain;
// - a dispute took any number of resolutions, each stored as authoritative, and none was found by its dispute's id.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import {
  commissionOwnAgent,
  partyOf,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const backend = createNativeBackend();
type Party = ReturnType<typeof partyOf>;

describe.each(dialectsUnderTest())('records kept as and where they were signed, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const retiree = partyOf(buildSignedBundle());
  const reporter = partyOf(buildSignedBundle());
  const initiator = partyOf(buildSignedBundle());
  const respondent = partyOf(buildSignedBundle());
  const arbiter = partyOf(buildSignedBundle());
  const disputeId = 'dispute:p240-one-resolution';
  let retire: Awaited<ReturnType<typeof commissionOwnAgent>>;

  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 400);
  const sign = (kind: string, record: Json, party: Party) =>
    signRecord(backend, PROFILES.proto, kind, record, party.agentKeys);
  const getStatus = async (path: string) => {
    const res = await fetch(`${service.url}${path}`);
    return { status: res.status, json: (await res.json()) as Json };
  };
  const decommissioning = (timestamp: string) =>
    sign(
      'decommissioning_record',
      withFields(example('decommissioning_record'), {
        agent_id: retiree.agentId,
        human_id: retiree.humanId,
        successor_agent_id: null,
        timestamp,
      }),
      retiree,
    );
  const report = (fields: Json) =>
    service.post(
      '/v2/lifecycle/vitality',
      sign(
        'vitality_report',
        // The reporter is commissioned and never moved: its reports say so (P447).
        withFields(example('vitality_report'), {
          agent_id: reporter.agentId,
          state: 'commissioned',
          ...fields,
        }),
        reporter,
      ),
    );
  const resolution = (text: string, ofDispute = disputeId) =>
    sign(
      'arbitration_resolution',
      withFields(example('arbitration_resolution'), {
        dispute_id: ofDispute,
        arbitrator_ids: [arbiter.agentId],
        resolution: text,
      }),
      arbiter,
    );

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-signed-order', {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    });
    retire = await commissionOwnAgent(service, retiree);
    await commissionOwnAgent(service, reporter); // its certificate is dated 2026-04-01T08:00:00Z (the example's)
    for (const party of [initiator, respondent, arbiter]) {
      expect(
        (await service.post('/verify', { signed_bundle: party.built.signed_bundle })).json['verified'],
      ).toBe(true);
      expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
    }
    const dispute = withFields(example('dispute_record'), {
      dispute_id: disputeId,
      initiator_agent_id: initiator.agentId,
      respondent_agent_id: respondent.agentId,
    });
    const filed = await service.post('/v2/dispute/record', sign('dispute_record', dispute, initiator));
    expect(filed.status, shown(filed)).toBe(201);
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it("P238: a decommissioning dated before the agent's latest move is 409; one after it is recorded at its signed time", async () => {
    const activeAt = new Date(Date.now() + 60_000).toISOString();
    const active = await retire.move({ agent_id: retiree.agentId, to_state: 'active', timestamp: activeAt });
    expect(active.status, shown(active)).toBe(200);

    const before = new Date(Date.parse(activeAt) - 1).toISOString();
    const backdated = await service.post('/v2/lifecycle/decommission', decommissioning(before));
    expect(backdated.status, shown(backdated)).toBe(409);
    expect(backdated.json).toMatchObject({
      error: { code: 'CONFLICT', details: { latest_move_at: activeAt, timestamp: before } },
    });
    expect(await retire.state()).toBe('active');
    expect((await getStatus(`/v2/lifecycle/decommission/${retiree.agentId}`)).status).toBe(404);

    const signedAt = new Date(Date.parse(activeAt) + 1).toISOString();
    const stored = await service.post('/v2/lifecycle/decommission', decommissioning(signedAt));
    expect(stored.status, shown(stored)).toBe(201);
    expect(await retire.state()).toBe('decommissioned');
    const history = await (await service.replica()).lifecycle.history(retiree.agentId);
    expect(history.map((entry) => [entry.to_state, entry.at]).slice(-2)).toEqual([
      ['active', activeAt],
      ['decommissioned', signedAt],
    ]);
  });

  it("P239: a vitality report dated before the agent's commissioning is 409 and starts no chain", async () => {
    const early = await report({ prev_report_hash: 'GENESIS', timestamp: '2026-03-01T08:00:00Z' });
    expect(early.status, shown(early)).toBe(409);
    expect(early.json).toMatchObject({ error: { code: 'CONFLICT' } });
    expect((await getStatus(`/v2/lifecycle/vitality/${reporter.agentId}`)).status).toBe(404);
  });

  it("P239: a vitality report dated before the agent's latest report is 409; at or after it, it extends the chain", async () => {
    const firstAt = new Date(Date.now() - 300_000).toISOString();
    const first = await report({ prev_report_hash: 'GENESIS', timestamp: firstAt, vitality_score: 900 });
    expect(first.status, shown(first)).toBe(201);
    const firstHash = first.json['report_hash'] as string;

    const before = new Date(Date.parse(firstAt) - 1).toISOString();
    const backdated = await report({ prev_report_hash: firstHash, timestamp: before, vitality_score: 100 });
    expect(backdated.status, shown(backdated)).toBe(409);
    expect(backdated.json).toMatchObject({
      error: { code: 'CONFLICT', details: { latest_report_at: firstAt, timestamp: before } },
    });
    const latest = await getStatus(`/v2/lifecycle/vitality/${reporter.agentId}`);
    expect(latest.json['report_hash']).toBe(firstHash);

    // The same instant, written with another offset, is not before it.
    const sameInstant = firstAt.replace('Z', '+00:00');
    const next = await report({ prev_report_hash: firstHash, timestamp: sameInstant, vitality_score: 880 });
    expect(next.status, shown(next)).toBe(201);
  });

  it('P240: a dispute has one resolution: a second is 409 whoever writes it, the first is found by the dispute id', async () => {
    const first = resolution('Ledger writes alternate in 15-minute windows.');
    const stored = await service.post('/v2/dispute/arbitration', first);
    expect(stored.status, shown(stored)).toBe(201);
    const second = await service.post(
      '/v2/dispute/arbitration',
      resolution('The initiator keeps the ledger.'),
    );
    expect(second.status, shown(second)).toBe(409);
    expect(second.json).toMatchObject({ error: { code: 'CONFLICT' } });
    expect(stored.json).toMatchObject({ id: disputeId, signature: { status: 'verified' } });
    const byOperator = await service.post('/v2/dispute/arbitration', resolution('The operator splits it.'), {
      authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
    });
    expect(byOperator.status, shown(byOperator)).toBe(409);

    expect((await service.post('/v2/dispute/arbitration', first)).status).toBe(200); // the same one: idempotent
    const found = await getStatus(`/v2/dispute/arbitration/${disputeId}`);
    expect(found.status, shown(found)).toBe(200);
    expect(found.json['record']).toEqual(first);
  });

  it('P267: a dispute filed resolved or arbitrated takes no resolution here (409); an appealed one does', async () => {
    const fileAs = async (status: string) => {
      const id = `dispute:p267-${status}`;
      const dispute = withFields(example('dispute_record'), {
        dispute_id: id,
        initiator_agent_id: initiator.agentId,
        respondent_agent_id: respondent.agentId,
        status,
      });
      const filed = await service.post('/v2/dispute/record', sign('dispute_record', dispute, initiator));
      expect(filed.status, shown(filed)).toBe(201);
      return id;
    };
    for (const status of ['resolved', 'arbitrated']) {
      const id = await fileAs(status);
      const signed = await service.post('/v2/dispute/arbitration', resolution('Split it.', id));
      expect(signed.status, shown(signed)).toBe(409);
      expect(signed.json).toMatchObject({ error: { code: 'CONFLICT', details: { dispute_status: status } } });
      const byOperator = await service.post('/v2/dispute/arbitration', resolution('Split it.', id), {
        authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
      });
      expect(byOperator.status, shown(byOperator)).toBe(409);
      expect((await getStatus(`/v2/dispute/arbitration/${id}`)).status).toBe(404);
    }
    const appealed = await fileAs('appealed');
    const stored = await service.post(
      '/v2/dispute/arbitration',
      resolution('On appeal: split it.', appealed),
    );
    expect(stored.status, shown(stored)).toBe(201);
  });
});
