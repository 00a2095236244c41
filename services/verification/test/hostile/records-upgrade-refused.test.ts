// P506–P507 over HTTP against the real verification service with the /v2 records mounted, on every store dialect.
// P446 lets the owner's hybrid record take the place of its PQ-stripped copy. The upgrade ran in a transaction of its
// own, before the kind's handler judged the record: a record the handler then refused (409) still left its hybrid form
// in the stripped copy's place, so a refused write changed the store. And an appeal's outcome shown beside its
// decision (GET /v2/dispute/arbitration/<id>) carried a `signature` with no `form`, which P446 added to other reads.
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedPayloadHash } from '../../src/records/panel-quorum.ts';
import type { Json } from '../../src/records/test-support.ts';
import { OPERATOR, type PanelFixture, startPanelFixture, stripped } from './verifier-with-records.ts';

describe.each(dialectsUnderTest())(
  'an upgrade the handler refuses, and how a read shows a signature, on %s',
  (dialect) => {
    let f: PanelFixture;

    beforeAll(async () => {
      f = await startPanelFixture(dialect, 'v2-upgrade-refused');
    }, 180_000);
    afterAll(async () => {
      await f?.service.close();
    });

    it('P506: a hybrid record its handler refuses leaves its stripped copy where it was', async () => {
      const { first, second, third } = f;
      const id = 'dispute:p506-refused';
      await f.file(id);
      // A pending first text (first member), then the second member's own text, posted stripped by whoever saw it.
      expect((await f.resolve(f.resolution(id, 'The first text.', first.agentKeys))).status).toBe(201);
      const own = f.resolution(id, "The second member's text.", second.agentKeys);
      const squat = await f.resolve(stripped('arbitration_resolution', own));
      expect(squat.status, f.shown(squat)).toBe(201);
      // The third and the first member settle the dispute on a third text (P372): the second's text takes no signature.
      expect((await f.resolve(f.resolution(id, 'The agreed text.', third.agentKeys))).status).toBe(201);
      expect((await f.resolve(f.resolution(id, 'The agreed text.', first.agentKeys))).status).toBe(200);
      expect(await f.disputeOf(id)).toMatchObject({ state: 'resolved' });

      const refused = await f.resolve(own);
      expect(refused.status, f.shown(refused)).toBe(409);
      // The refused write changed nothing: the stripped copy is still the stored proposal, with no upgrade traced.
      // Before P506: the refused hybrid record had taken its place (the upgrade committed before the handler ran).
      const store = await f.service.replica();
      const proposal = await store.records.get('arbitration_proposal', signedPayloadHash(own));
      expect(proposal?.record, 'the stored proposal').toEqual(stripped('arbitration_resolution', own));
      expect(
        await store.records.get('record_signature_upgrade', String(proposal?.content_hash)),
      ).toBeUndefined();
    });

    it("P507: an appeal's outcome read beside its decision shows its signature's form", async () => {
      const { first, second } = f;
      const id = 'dispute:p507-form';
      const decision = await f.resolve(f.resolution(id, 'The decision.', first.agentKeys), OPERATOR);
      expect(decision.status, f.shown(decision)).toBe(201);
      await f.file(id, { status: 'appealed', escalation_level: 'human_appeal' });
      const later = { timestamp: '2026-06-06T12:00:00Z' };
      const outcome = f.resolution(id, 'The outcome.', first.agentKeys, later);
      const squat = await f.resolve(stripped('arbitration_resolution', outcome));
      expect(squat.status, f.shown(squat)).toBe(201);
      expect(squat.json).toMatchObject({ appeal_outcome: true, signature: { form: 'classical_only' } });
      const pending = await f.get(`/v2/dispute/arbitration/${id}`);
      // Before P507: `{status: "verified", kid, evidence}` with no form.
      expect((pending.json['appeal_outcome'] as Json)['signature'], f.shown(pending)).toMatchObject({
        status: 'verified',
        form: 'classical_only',
      });
      expect((await f.resolve(outcome)).status).toBe(201);
      expect((await f.resolve(f.resolution(id, 'The outcome.', second.agentKeys, later))).status).toBe(200);
      const read = await f.get(`/v2/dispute/arbitration/${id}`);
      expect(read.json['signature'], f.shown(read)).toMatchObject({ status: 'administrative' });
      expect((read.json['appeal_outcome'] as Json)['signature'], f.shown(read)).toMatchObject({
        status: 'verified',
        form: 'hybrid',
        upgraded_from: { form: 'classical_only', content_hash: expect.stringMatching(/^sha256:/) },
      });
    });
  },
);
