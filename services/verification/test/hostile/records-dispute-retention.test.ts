// P508–P510 over HTTP against the real verification service with the /v2 records mounted, on every store dialect.
// Retention (D17, STORE_MAX_ENTRIES per kind) evicts the oldest records of a kind, a dispute's own filing and the
// decision an appeal answers included. Once the filing was evicted the service no longer knew the dispute's parties,
// so every signed resolution was 409 "No dispute … is filed here" and only the operator could resolve it; once the
// appealed decision was evicted, its tombstone refused every outcome of the appeal; once a proposal was evicted, its
// tombstone refused every other member's copy of that text. The service is restarted with a
// retention of one to evict exactly the records these tests aim at (an operator lowering STORE_MAX_ENTRIES).
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR, type PanelFixture, startPanelFixture } from './verifier-with-records.ts';

const WIDE = { STORE_MAX_ENTRIES: '10000' };
const ONE = { STORE_MAX_ENTRIES: '1' };

describe.each(dialectsUnderTest())(
  'a dispute whose own records (filing, decision, proposal) retention evicted, on %s',
  (dialect) => {
    let f: PanelFixture;

    beforeAll(async () => {
      f = await startPanelFixture(dialect, 'v2-dispute-retention', WIDE);
    }, 180_000);
    afterAll(async () => {
      await f?.service.close();
    });
    // Each test lowers retention to one record a kind for its eviction; the next starts from the wide one again.
    afterEach(async () => {
      await f.service.restart(WIDE);
    });

    /**
     * The operator decided `id` and its appeal is filed; then, retention lowered to one, the operator's decision of
     * `filler` (a dispute not filed here) evicts that decision.
     */
    const appealEvictedDecision = async (id: string, filler: string) => {
      const decision = await f.resolve(f.resolution(id, 'The decision.', f.first.agentKeys), OPERATOR);
      expect(decision.status, f.shown(decision)).toBe(201);
      await f.file(id, { status: 'appealed', escalation_level: 'human_appeal' });
      await f.service.restart(ONE);
      const evicting = await f.resolve(f.resolution(filler, 'filler', f.first.agentKeys), OPERATOR);
      expect(evicting.status, f.shown(evicting)).toBe(201);
    };

    it('P508: a dispute whose filing was evicted is still resolved by its panel, and its parties still judged', async () => {
      const { first, second, third } = f;
      const id = 'dispute:p508-evicted';
      // Filed against the third appointed member's agent: a party, so it may not sit on this dispute's panel.
      await f.file(id, { respondent_agent_id: third.agentId });
      await f.service.restart(ONE);
      // Another filing evicts this one (one dispute record kept).
      await f.file('dispute:p508-other');
      expect((await f.get(`/v2/dispute/record/${id}`)).status).toBe(404);

      const withParty = await f.resolve(f.resolution(id, 'A panel with a party.', first.agentKeys));
      // Before P508: 409 "No dispute … is filed here" for this and every signed resolution below.
      expect(withParty.status, f.shown(withParty)).toBe(403);
      expect(withParty.json, f.shown(withParty)).toMatchObject({
        error: { details: { party: third.agentId } },
      });

      const panel = { arbitrator_ids: [first.agentId, second.agentId] };
      const proposed = await f.resolve(f.resolution(id, 'The panel decides.', first.agentKeys, panel));
      expect(proposed.status, f.shown(proposed)).toBe(201);
      const joined = await f.resolve(f.resolution(id, 'The panel decides.', second.agentKeys, panel));
      expect(joined.status, f.shown(joined)).toBe(200);
      const read = await f.get(`/v2/dispute/arbitration/${id}`);
      expect(read.json, f.shown(read)).toMatchObject({
        record: { resolution: 'The panel decides.' },
        panel: { quorum: 2, signed_by: [first.agentId, second.agentId] },
      });
    });

    it("P509: an appeal's outcome is posted, counted and read once the appealed decision (and the filing) are evicted", async () => {
      const { first, second } = f;
      const id = 'dispute:p509-appeal';
      await appealEvictedDecision(id, 'dispute:p509-filler');
      // Another filing evicts the appeal's.
      await f.file('dispute:p509-other');
      expect((await f.get(`/v2/dispute/record/${id}`)).status).toBe(404);

      // The decision's signed time still floors the outcome (P296).
      const early = await f.resolve(
        f.resolution(id, 'Too early.', first.agentKeys, { timestamp: '2026-06-01T12:00:00Z' }),
      );
      expect(early.status, f.shown(early)).toBe(409);

      const later = { timestamp: '2026-06-06T12:00:00Z' };
      const outcome = await f.resolve(f.resolution(id, 'The outcome.', first.agentKeys, later));
      // Before P509: 409 "held a different arbitration resolution, removed by retention" (the decision's tombstone).
      expect(outcome.status, f.shown(outcome)).toBe(201);
      expect(outcome.json, f.shown(outcome)).toMatchObject({
        appeal_outcome: true,
        panel: { quorum: 2, signed_by: [first.agentId] },
      });
      const joined = await f.resolve(f.resolution(id, 'The outcome.', second.agentKeys, later));
      expect(joined.status, f.shown(joined)).toBe(200);
      expect(joined.json, f.shown(joined)).toMatchObject({
        appeal_outcome: true,
        panel: { quorum: 2, signed_by: [first.agentId, second.agentId] },
      });
      // The evicted decision itself, posted again, is still the decision (its id keeps its meaning), not an outcome.
      const again = await f.resolve(f.resolution(id, 'The decision.', first.agentKeys), OPERATOR);
      expect(again.json['appeal_outcome'], f.shown(again)).toBeUndefined();
    });

    it("P509: an appeal's outcome is taken once the appealed decision alone is evicted", async () => {
      const { first } = f;
      const id = 'dispute:p509-decision-only';
      await appealEvictedDecision(id, 'dispute:p509-filler-2');
      expect((await f.get(`/v2/dispute/record/${id}`)).status).toBe(200);
      const outcome = await f.resolve(
        f.resolution(id, 'The outcome.', first.agentKeys, { timestamp: '2026-06-06T12:00:00Z' }),
      );
      // Before P509: 409 "held a different arbitration resolution, removed by retention" (the decision's tombstone).
      expect(outcome.status, f.shown(outcome)).toBe(201);
      expect(outcome.json, f.shown(outcome)).toMatchObject({ appeal_outcome: true });
      // P538: the operator's decision stays decided; the appeal's outcome, one member short, is the pending text.
      const state = await f.disputeOf(id);
      const shownState = JSON.stringify([state['state'], state['resolution'], state['appeal_outcome']]);
      // Before P538: the decision read `pending: true` (the appeal's rows counted for it), no appeal outcome shown.
      expect((state['resolution'] as Record<string, unknown>)['pending'], shownState).toBeUndefined();
      expect(state['appeal_outcome'], shownState).toMatchObject({
        panel: { quorum: 2, signed_by: [first.agentId] },
      });
    });

    it("P565: GET of the arbitration answers from the evicted decision's tombstone, its appeal's outcome beside it", async () => {
      const { first, second } = f;
      const id = 'dispute:p565-appeal';
      await appealEvictedDecision(id, 'dispute:p565-filler');
      const later = { timestamp: '2026-06-06T12:00:00Z' };
      for (const keys of [first.agentKeys, second.agentKeys]) {
        const outcome = await f.resolve(f.resolution(id, 'The outcome.', keys, later));
        expect([200, 201], f.shown(outcome)).toContain(outcome.status);
      }
      const dispute = await f.disputeOf(id);
      expect(dispute['resolution'], f.shown({ json: dispute })).toMatchObject({
        evicted_at: expect.any(String),
      });
      const read = await f.get(`/v2/dispute/arbitration/${id}`);
      // Before P565: 404, while GET /v2/dispute/record/<id> named the decision (evicted) and its appeal's outcome.
      expect(read.status, f.shown(read)).toBe(200);
      expect(read.json, f.shown(read)).toMatchObject({
        id,
        kind: 'arbitration_resolution',
        record: null,
        stored_at: (dispute['resolution'] as Record<string, unknown>)['stored_at'],
        evicted_at: (dispute['resolution'] as Record<string, unknown>)['evicted_at'],
        signature: { status: 'administrative' },
        appeal_outcome: {
          record: { resolution: 'The outcome.' },
          panel: { quorum: 2, signed_by: [first.agentId, second.agentId] },
        },
      });
      expect(read.json['pending'], f.shown(read)).toBeUndefined();
      // A dispute with no resolution, stored or evicted, is still 404.
      expect((await f.get('/v2/dispute/arbitration/dispute:p565-never')).status).toBe(404);
    });

    it("P510: a co-signer's copy of an evicted proposal is counted with it and settles the dispute", async () => {
      const { first, second, third } = f;
      const id = 'dispute:p510-evicted';
      const other = 'dispute:p510-other';
      for (const disputeId of [id, other]) await f.file(disputeId);
      expect((await f.resolve(f.resolution(id, 'The first text.', first.agentKeys))).status).toBe(201);
      const proposal = await f.resolve(f.resolution(id, "The second member's text.", second.agentKeys));
      expect(proposal.status, f.shown(proposal)).toBe(201);
      await f.service.restart(ONE);
      // The other dispute's texts evict this dispute's first text and its proposal (one record of each kind kept).
      expect((await f.resolve(f.resolution(other, 'Its first text.', first.agentKeys))).status).toBe(201);
      expect((await f.resolve(f.resolution(other, 'Its other text.', second.agentKeys))).status).toBe(201);

      const joined = await f.resolve(f.resolution(id, "The second member's text.", third.agentKeys));
      // Before P510: 409 "held a different arbitration resolution, removed by retention" (the proposal's tombstone).
      expect(joined.status, f.shown(joined)).toBe(201);
      expect(joined.json, f.shown(joined)).toMatchObject({
        panel: { quorum: 2, signed_by: [second.agentId, third.agentId] },
      });
      const settled = await f.disputeOf(id);
      expect(settled, f.shown({ json: settled })).toMatchObject({
        state: 'resolved',
        resolution: { panel: { quorum: 2, signed_by: [second.agentId, third.agentId] } },
      });
      // Another text is no copy of the evicted proposal: still refused once the dispute is settled.
      const late = await f.resolve(f.resolution(id, 'Too late.', first.agentKeys));
      expect(late.status, f.shown(late)).toBe(409);
    });
  },
);
