// P438–P440 over HTTP against the real verification service with the /v2 records mounted, on every store dialect.
// Retention (D17, STORE_MAX_ENTRIES per kind) evicts the oldest records of a kind. A dispute whose first resolution was
// evicted while its panel was still short of the quorum (RECORDS_PANEL_QUORUM=2) could no longer be settled: the
// tombstone refused every other text and the operator's resolution alike, and GET /v2/dispute/arbitration/<id> was 404.
// An appeal's outcome evicted while pending read as decided. The service is restarted with a retention of one to
// evict exactly the records these tests aim at (an operator lowering STORE_MAX_ENTRIES), the parties kept.
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../src/records/test-support.ts';
import { OPERATOR, type PanelFixture, startPanelFixture } from './verifier-with-records.ts';

const WIDE = { STORE_MAX_ENTRIES: '10000' };
const ONE = { STORE_MAX_ENTRIES: '1' };

describe.each(dialectsUnderTest())(
  'a dispute stays settleable whatever retention evicted, on %s',
  (dialect) => {
    let f: PanelFixture;

    beforeAll(async () => {
      f = await startPanelFixture(dialect, 'v2-dispute-eviction', WIDE);
    }, 180_000);
    afterAll(async () => {
      await f?.service.close();
    });

    it('P438, P439: a dispute whose first text was evicted while pending is settled by its panel or the operator, and read', async () => {
      const { first, second, third } = f;
      const byOthers = 'dispute:p438-others';
      const byCopy = 'dispute:p438-copy';
      const byOperator = 'dispute:p438-operator';
      for (const id of [byOthers, byCopy, byOperator]) {
        await f.file(id);
        const pending = await f.resolve(f.resolution(id, `${id}: the first member's text.`, first.agentKeys));
        expect(pending.status, f.shown(pending)).toBe(201);
      }
      // Retention lowered to one: the operator's resolution of a dispute not filed here evicts the three first texts.
      await f.service.restart(ONE);
      const filler = await f.resolve(
        f.resolution('dispute:p438-filler', 'filler', first.agentKeys),
        OPERATOR,
      );
      expect(filler.status, f.shown(filler)).toBe(201);
      const evicted = await f.disputeOf(byOthers);
      const unread = await f.get(`/v2/dispute/arbitration/${byOthers}`);

      // Two other members agree on another text (P372): a proposal, then the settlement.
      const proposed = await f.resolve(f.resolution(byOthers, 'The agreed text.', second.agentKeys));
      // Before P438: 409 "held a different arbitration resolution, removed by retention" (the tombstone refused it).
      expect(proposed.status, f.shown(proposed)).toBe(201);
      const joined = await f.resolve(f.resolution(byOthers, 'The agreed text.', third.agentKeys));
      expect(joined.status, f.shown(joined)).toBe(200);
      // Evicted and pending, it read open, its trace marked pending (P440), with no resolution to read (P431).
      expect(evicted, f.shown({ json: evicted })).toMatchObject({
        state: 'open',
        resolution: { id: byOthers, evicted_at: expect.any(String), pending: true },
      });
      // P565: read as the dispute reads it, from the tombstone (before P565: 404).
      expect(unread.json, f.shown(unread)).toMatchObject({
        record: null,
        evicted_at: expect.any(String),
        pending: true,
      });
      const settled = await f.disputeOf(byOthers);
      expect(settled, f.shown({ json: settled })).toMatchObject({
        state: 'resolved',
        resolution: { id: byOthers, panel: { quorum: 2, signed_by: [second.agentId, third.agentId] } },
      });
      // P439: the settlement is read where the first text was (before: 404 once the first was evicted).
      const read = await f.get(`/v2/dispute/arbitration/${byOthers}`);
      expect(read.status, f.shown(read)).toBe(200);
      expect(read.json, f.shown(read)).toMatchObject({
        kind: 'arbitration_resolution',
        record: { resolution: 'The agreed text.' },
        panel: { quorum: 2, signed_by: [second.agentId, third.agentId] },
        signature: { status: 'verified', kid: second.agentKeys.classical.kid },
      });
      // Settled: another text is refused, as on a live first text.
      const late = await f.resolve(f.resolution(byOthers, 'Too late.', first.agentKeys));
      expect(late.status, f.shown(late)).toBe(409);

      // The first text's own signature still counts: a second member's copy of it reaches the quorum.
      const copy = await f.resolve(
        f.resolution(byCopy, `${byCopy}: the first member's text.`, second.agentKeys),
      );
      expect(copy.status, f.shown(copy)).toBe(201);
      expect(await f.disputeOf(byCopy)).toMatchObject({
        state: 'resolved',
        resolution: { panel: { signed_by: [first.agentId, second.agentId] } },
      });

      // The operator settles a dispute its panel left pending (P373), evicted or not.
      const operator = await f.resolve(
        f.resolution(byOperator, 'The operator decides.', first.agentKeys),
        OPERATOR,
      );
      // Before P438: 409 (the tombstone), so nobody could settle it.
      expect(operator.status, f.shown(operator)).toBe(201);
      expect(await f.disputeOf(byOperator)).toMatchObject({ state: 'resolved' });
      const byToken = await f.get(`/v2/dispute/arbitration/${byOperator}`);
      expect(byToken.json, f.shown(byToken)).toMatchObject({
        record: { resolution: 'The operator decides.' },
        signature: { status: 'administrative' },
      });
      await f.service.restart(WIDE);
    });

    it('P438 control: a first text evicted once it had resolved still refuses every other text', async () => {
      const { first, second } = f;
      const id = 'dispute:p438-resolved';
      await f.file(id);
      expect((await f.resolve(f.resolution(id, 'Decided.', first.agentKeys))).status).toBe(201);
      expect((await f.resolve(f.resolution(id, 'Decided.', second.agentKeys))).status).toBe(200);
      await f.service.restart(ONE);
      expect(
        (await f.resolve(f.resolution('dispute:p438-filler-2', 'filler', first.agentKeys), OPERATOR)).status,
      ).toBe(201);
      const dispute = await f.disputeOf(id);
      expect(dispute, f.shown({ json: dispute })).toMatchObject({
        state: 'resolved',
        resolution: { evicted_at: expect.any(String) },
      });
      expect((dispute['resolution'] as Json)['pending']).toBeUndefined();
      const other = await f.resolve(f.resolution(id, 'Another text.', second.agentKeys));
      expect(other.status, f.shown(other)).toBe(409);
      const operator = await f.resolve(f.resolution(id, 'The operator again.', first.agentKeys), OPERATOR);
      expect(operator.status, f.shown(operator)).toBe(409);
      await f.service.restart(WIDE);
    });

    it("P440: an appeal's outcome evicted while pending reads pending, and the panel still decides the appeal", async () => {
      const { first, second, third } = f;
      const id = 'dispute:p440-appeal';
      const other = 'dispute:p440-other';
      // Both decisions are the operator's, stored before each dispute is filed appealed (D22, P296).
      for (const disputeId of [id, other]) {
        const decision = await f.resolve(f.resolution(disputeId, 'The decision.', first.agentKeys), OPERATOR);
        expect(decision.status, f.shown(decision)).toBe(201);
        await f.file(disputeId, { status: 'appealed', escalation_level: 'human_appeal' });
      }
      const later = { timestamp: '2026-06-06T12:00:00Z' };
      const outcome = await f.resolve(f.resolution(id, 'The first outcome.', first.agentKeys, later));
      expect(outcome.status, f.shown(outcome)).toBe(201);
      expect(outcome.json).toMatchObject({ appeal_outcome: true, panel: { signed_by: [first.agentId] } });
      // Retention lowered to one: the operator's outcome of the other appeal evicts this pending outcome.
      await f.service.restart(ONE);
      const evicting = await f.resolve(
        f.resolution(other, 'The other outcome.', first.agentKeys, later),
        OPERATOR,
      );
      expect(evicting.status, f.shown(evicting)).toBe(201);

      const pending = await f.disputeOf(id);
      // Before P440: `appeal_outcome: {id, stored_at, evicted_at}` and nothing else, read as decided (no panel short of
      // the quorum, as a live pending outcome shows).
      expect(pending['appeal_outcome'], f.shown({ json: pending })).toMatchObject({
        evicted_at: expect.any(String),
        pending: true,
      });
      const decision = await f.get(`/v2/dispute/arbitration/${id}`);
      expect(decision.json['appeal_outcome'], f.shown(decision)).toBeUndefined();

      // Two members decide the appeal on another text (P378) although the first outcome is gone.
      const proposed = await f.resolve(f.resolution(id, 'The agreed outcome.', second.agentKeys, later));
      // Before: 409, the evicted outcome's tombstone.
      expect(proposed.status, f.shown(proposed)).toBe(201);
      expect((await f.resolve(f.resolution(id, 'The agreed outcome.', third.agentKeys, later))).status).toBe(
        200,
      );
      const decided = await f.disputeOf(id);
      expect(decided['appeal_outcome'], f.shown({ json: decided })).toMatchObject({
        panel: { quorum: 2, signed_by: [second.agentId, third.agentId] },
      });
      expect((decided['appeal_outcome'] as Json)['pending']).toBeUndefined();
      const beside = await f.get(`/v2/dispute/arbitration/${id}`);
      expect(beside.json['appeal_outcome'], f.shown(beside)).toMatchObject({
        record: { resolution: 'The agreed outcome.' },
        panel: { signed_by: [second.agentId, third.agentId] },
      });
      await f.service.restart(WIDE);
    });
  },
);
