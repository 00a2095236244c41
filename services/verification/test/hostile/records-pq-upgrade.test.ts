// PQ-stripping squats under the default VERIFIER_MODE=hybrid_preferred (P446), over HTTP against the real verification
// service with the /v2 records mounted, on every store dialect. A composite signature's `binding` is covered by no
// signature (PROTOCOL §3), so whoever sees an agent's hybrid-signed record before it is posted can strip its ML-DSA half,
// mark it `classical_only` and post it first: the classical half still verifies, and hybrid_preferred accepts it (P377
// refuses it only under a hybrid floor). The owner's own hybrid record of the same payload is then the upgrade of what
// is stored, not another record.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import {
  commissioningCertificate,
  partyOf,
  startWithParties,
  stripped,
  type VerifierWithRecords,
  verifyParty,
} from './verifier-with-records.ts';

const backend = createNativeBackend();
type Party = ReturnType<typeof partyOf>;
type Keys = Party['agentKeys'];

describe.each(dialectsUnderTest())(
  'a PQ-stripped copy posted first under VERIFIER_MODE=hybrid_preferred, on %s',
  (dialect) => {
    let service: VerifierWithRecords;
    const owner = partyOf(buildSignedBundle());
    const other = partyOf(buildSignedBundle());
    const arbiter = partyOf(buildSignedBundle());
    const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 600);
    const sign = (kind: string, record: Json, keys: Keys) =>
      signRecord(backend, PROFILES.proto, kind, record, keys);
    const get = async (path: string) => {
      const res = await fetch(`${service.url}${path}`);
      return { status: res.status, json: (await res.json()) as Json };
    };

    /**
     * The squat and its answer: the stripped copy is stored first (201, `classical_only` shown), the owner's hybrid
     * record is then stored in its place (201, `hybrid` shown, the replaced copy named), and GET answers the owner's.
     */
    async function squatThenUpgrade(path: string, kind: string, record: Json, getPath: string) {
      const squat = await service.post(path, stripped(kind, record));
      expect(squat.status, shown(squat)).toBe(201);
      expect(squat.json['signature'], shown(squat)).toMatchObject({
        status: 'verified',
        form: 'classical_only',
      });
      const before = await get(getPath);
      expect(before.json['signature'], shown(before)).toMatchObject({ form: 'classical_only' });

      const own = await service.post(path, record);
      // Before P446: 409 CONFLICT ("a different … is already stored"), the stripped copy kept for good.
      expect(own.status, shown(own)).toBe(201);
      expect(own.json['record']).toEqual(record);
      expect(own.json['signature'], shown(own)).toMatchObject({
        status: 'verified',
        form: 'hybrid',
        upgraded_from: { form: 'classical_only' },
      });
      const after = await get(getPath);
      expect(after.json['record'], shown(after)).toEqual(record);
      expect(after.json['signature'], shown(after)).toMatchObject({
        status: 'verified',
        form: 'hybrid',
        upgraded_from: { form: 'classical_only', content_hash: expect.stringMatching(/^sha256:/) },
      });

      // The owner's record again is idempotent; the stripped copy again does not take the id back.
      const again = await service.post(path, record);
      expect(again.status, shown(again)).toBe(200);
      const restrip = await service.post(path, stripped(kind, record));
      expect(restrip.status, shown(restrip)).toBe(409);
      expect((await get(getPath)).json['record']).toEqual(record);
      return own;
    }

    beforeAll(async () => {
      service = await startWithParties(dialect, 'v2-pq-upgrade', {}, [other, arbiter]);
    }, 180_000);
    afterAll(async () => {
      await service?.close();
    });

    it("P446: an agent's commissioning, vitality report, testament and decommissioning are upgraded to the owner's hybrid form", async () => {
      // Commissioning: the owner's key is bound by its verified bundle; the certificate is squatted before it is posted.
      await verifyParty(service, owner);
      const certificate = commissioningCertificate(owner, owner.built.keys.agent);
      const commissioned = await squatThenUpgrade(
        '/v2/lifecycle/commission',
        'commissioning_certificate',
        certificate,
        `/v2/lifecycle/commission/${owner.agentId}`,
      );
      expect(commissioned.json['state']).toBe('commissioned');

      const start = Date.now() + 1000;
      const at = (offsetMs: number) => new Date(start + offsetMs).toISOString();
      const moved = await service.post(
        '/v2/lifecycle/transition',
        sign(
          'lifecycle_transition',
          { agent_id: owner.agentId, to_state: 'active', timestamp: at(0) },
          owner.agentKeys,
        ),
      );
      expect(moved.status, shown(moved)).toBe(200);

      const report = sign(
        'vitality_report',
        withFields(example('vitality_report'), {
          agent_id: owner.agentId,
          timestamp: at(1000),
          state: 'active',
        }),
        owner.agentKeys,
      );
      const reported = await squatThenUpgrade(
        '/v2/lifecycle/vitality',
        'vitality_report',
        report,
        `/v2/lifecycle/vitality/${owner.agentId}`,
      );
      expect(reported.json['report_hash']).toMatch(/^sha256:/);

      const testament = sign(
        'digital_testament',
        withFields(example('digital_testament'), {
          agent_id: owner.agentId,
          testament_version: 1,
          created_at: at(1000),
          last_updated: at(1000),
        }),
        owner.agentKeys,
      );
      await squatThenUpgrade(
        '/v2/succession/testament',
        'digital_testament',
        testament,
        `/v2/succession/testament/${owner.agentId}`,
      );

      const decommissioning = sign(
        'decommissioning_record',
        withFields(example('decommissioning_record'), {
          agent_id: owner.agentId,
          human_id: owner.humanId,
          successor_agent_id: null,
          timestamp: at(2000),
        }),
        owner.agentKeys,
      );
      const ended = await squatThenUpgrade(
        '/v2/lifecycle/decommission',
        'decommissioning_record',
        decommissioning,
        `/v2/lifecycle/decommission/${owner.agentId}`,
      );
      expect(ended.json['state']).toBe('decommissioned');
    });

    it('P446: records under a natural id (rights declaration, objection, dispute, mandate) are upgraded too', async () => {
      await squatThenUpgrade(
        '/v2/rights/declaration',
        'rights_declaration',
        sign(
          'rights_declaration',
          withFields(example('rights_declaration'), {
            declaration_id: 'rights:p446-own',
            agent_id: other.agentId,
          }),
          other.agentKeys,
        ),
        '/v2/rights/declaration/rights:p446-own',
      );
      await squatThenUpgrade(
        '/v2/dispute/objection',
        'objection_record',
        sign(
          'objection_record',
          withFields(example('objection_record'), {
            objection_id: 'objection:p446-own',
            agent_id: other.agentId,
          }),
          other.agentKeys,
        ),
        '/v2/dispute/objection/objection:p446-own',
      );
      await squatThenUpgrade(
        '/v2/dispute/record',
        'dispute_record',
        sign(
          'dispute_record',
          withFields(example('dispute_record'), {
            dispute_id: 'dispute:p446-own',
            initiator_agent_id: other.agentId,
            respondent_agent_id: arbiter.agentId,
          }),
          other.agentKeys,
        ),
        '/v2/dispute/record/dispute:p446-own',
      );
      // The mandate's signature member is the human's (human_composite_sig), by the principal's key.
      await squatThenUpgrade(
        '/v2/delegation/mandate',
        'delegation_mandate',
        sign(
          'delegation_mandate',
          withFields(example('delegation_mandate'), {
            mandate_id: 'mandate:p446-own',
            human_id: other.humanId,
            agent_id: other.agentId,
          }),
          other.principalKeys,
        ),
        '/v2/delegation/mandate/mandate:p446-own',
      );
    });

    it("P446: an arbitrator's resolution stripped and posted first is upgraded to the arbitrator's own", async () => {
      const filed = await service.post(
        '/v2/dispute/record',
        sign(
          'dispute_record',
          withFields(example('dispute_record'), {
            dispute_id: 'dispute:p446-resolved',
            initiator_agent_id: other.agentId,
            respondent_agent_id: owner.agentId,
          }),
          other.agentKeys,
        ),
      );
      expect(filed.status, shown(filed)).toBe(201);
      const resolution = sign(
        'arbitration_resolution',
        withFields(example('arbitration_resolution'), {
          dispute_id: 'dispute:p446-resolved',
          arbitrator_ids: [arbiter.agentId],
        }),
        arbiter.agentKeys,
      );
      await squatThenUpgrade(
        '/v2/dispute/arbitration',
        'arbitration_resolution',
        resolution,
        '/v2/dispute/arbitration/dispute:p446-resolved',
      );
    });

    it('P446 + P514: a content-id record stripped and posted first is upgraded to the hybrid one under its own id', async () => {
      // D14: a content id hashes the whole record, signature included, so the stripped copy holds another id; P514's
      // payload index finds it (before P514 both copies were kept, two copies of one ceremony).
      const record = sign(
        'succession_record',
        withFields(example('succession_record'), {
          predecessor_agent_id: other.agentId,
          successor_agent_id: arbiter.agentId,
          human_consent: null, // the example's consent is signed by nobody (P497 refuses it)
        }),
        other.agentKeys,
      );
      const squat = await service.post('/v2/succession/record', stripped('succession_record', record));
      expect(squat.status, shown(squat)).toBe(201);
      expect(squat.json['signature']).toMatchObject({ form: 'classical_only' });
      const own = await service.post('/v2/succession/record', record);
      expect(own.status, shown(own)).toBe(201);
      expect(own.json['id']).not.toBe(squat.json['id']);
      expect(own.json['signature']).toMatchObject({
        form: 'hybrid',
        upgraded_from: { form: 'classical_only', id: squat.json['id'], content_hash: squat.json['id'] },
      });
      for (const id of [own.json['id'], squat.json['id']]) {
        const kept = await get(`/v2/succession/record/${String(id)}`);
        expect(kept.json['id']).toBe(own.json['id']);
        expect(kept.json['record']).toEqual(record);
      }
    });

    it('P446: a stripped copy after the hybrid record does not replace it, and another record under the id is 409', async () => {
      const id = 'rights:p446-reverse';
      const original = sign(
        'rights_declaration',
        withFields(example('rights_declaration'), { declaration_id: id, agent_id: other.agentId }),
        other.agentKeys,
      );
      const posted = await service.post('/v2/rights/declaration', original);
      expect(posted.status, shown(posted)).toBe(201);
      expect(posted.json['signature'], shown(posted)).toMatchObject({ status: 'verified', form: 'hybrid' });
      expect(posted.json['signature']).not.toHaveProperty('upgraded_from');

      const copy = await service.post('/v2/rights/declaration', stripped('rights_declaration', original));
      expect(copy.status, shown(copy)).toBe(409);
      const kept = await get(`/v2/rights/declaration/${id}`);
      expect(kept.json['record']).toEqual(original);
      expect(kept.json['signature']).toMatchObject({ form: 'hybrid' });

      // A different declaration under the same id, hybrid-signed by the owner itself, is another record: 409.
      const rewritten = sign(
        'rights_declaration',
        withFields(example('rights_declaration'), {
          declaration_id: id,
          agent_id: other.agentId,
          jurisdiction: 'US',
        }),
        other.agentKeys,
      );
      const refused = await service.post('/v2/rights/declaration', rewritten);
      expect(refused.status, shown(refused)).toBe(409);
      expect((await get(`/v2/rights/declaration/${id}`)).json['record']).toEqual(original);
    });

    it('P446: only the same payload with the same classical half upgrades a stripped copy', async () => {
      const id = 'rights:p446-not-an-upgrade';
      const original = sign(
        'rights_declaration',
        withFields(example('rights_declaration'), { declaration_id: id, agent_id: other.agentId }),
        other.agentKeys,
      );
      const squat = await service.post('/v2/rights/declaration', stripped('rights_declaration', original));
      expect(squat.status, shown(squat)).toBe(201);
      // Another payload under the id, hybrid-signed: not the stored record with its PQ half.
      const changed = sign(
        'rights_declaration',
        withFields(example('rights_declaration'), {
          declaration_id: id,
          agent_id: other.agentId,
          jurisdiction: 'US',
        }),
        other.agentKeys,
      );
      const refused = await service.post('/v2/rights/declaration', changed);
      expect(refused.status, shown(refused)).toBe(409);
      // The PQ half with a classical half that is not the stored one (its signature bytes changed): refused as
      // invalid before anything is compared (the classical half no longer verifies).
      const sig = original['composite_sig'] as Json;
      const classical = sig['classical'] as Json;
      const flipped = String(classical['sig_b64']).startsWith('A') ? 'B' : 'A';
      const forged = {
        ...original,
        composite_sig: {
          ...sig,
          classical: { ...classical, sig_b64: flipped + String(classical['sig_b64']).slice(1) },
        },
      };
      const bad = await service.post('/v2/rights/declaration', forged);
      expect(bad.status, shown(bad)).toBe(400);
      // The operator's write is no signature check: it cannot upgrade a record either (D22, P44).
      const byOperator = await service.post('/v2/rights/declaration', original, {
        authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
      });
      expect(byOperator.status, shown(byOperator)).toBe(409);
      const kept = await get(`/v2/rights/declaration/${id}`);
      expect(kept.json['record']).toEqual(stripped('rights_declaration', original));
      expect(kept.json['signature']).toMatchObject({ form: 'classical_only' });
    });
  },
);

describe.each(dialectsUnderTest())(
  "a member's resolution stripped and posted first under a panel quorum of two, on %s",
  (dialect) => {
    let service: VerifierWithRecords;
    const initiator = partyOf(buildSignedBundle());
    const respondent = partyOf(buildSignedBundle());
    const first = partyOf(buildSignedBundle());
    const second = partyOf(buildSignedBundle());
    const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 600);
    const sign = (kind: string, record: Json, keys: Keys) =>
      signRecord(backend, PROFILES.proto, kind, record, keys);

    beforeAll(async () => {
      const panel = {
        RECORDS_ARBITRATORS: [first, second].map((p) => p.agentId).join(','),
        RECORDS_PANEL_QUORUM: '2',
      };
      service = await startWithParties(dialect, 'v2-pq-upgrade-panel', panel, [
        initiator,
        respondent,
        first,
        second,
      ]);
    }, 180_000);
    afterAll(async () => {
      await service?.close();
    });

    it("P446: the member's own hybrid copy replaces the stripped one, counted once, and a second member resolves it", async () => {
      const id = 'dispute:p446-panel';
      const filed = await service.post(
        '/v2/dispute/record',
        sign(
          'dispute_record',
          withFields(example('dispute_record'), {
            dispute_id: id,
            initiator_agent_id: initiator.agentId,
            respondent_agent_id: respondent.agentId,
          }),
          initiator.agentKeys,
        ),
      );
      expect(filed.status, shown(filed)).toBe(201);
      const resolution = (keys: Keys) =>
        sign(
          'arbitration_resolution',
          withFields(example('arbitration_resolution'), {
            dispute_id: id,
            arbitrator_ids: [first.agentId, second.agentId],
          }),
          keys,
        );
      const own = resolution(first.agentKeys);
      const squat = await service.post('/v2/dispute/arbitration', stripped('arbitration_resolution', own));
      expect(squat.status, shown(squat)).toBe(201);
      expect(squat.json).toMatchObject({ panel: { quorum: 2, signed_by: [first.agentId] } });

      const upgraded = await service.post('/v2/dispute/arbitration', own);
      // Before P446: 200, the stripped copy kept (the member counted through it) and no way to store its own.
      expect(upgraded.status, shown(upgraded)).toBe(201);
      expect(upgraded.json['record']).toEqual(own);
      expect(upgraded.json).toMatchObject({
        panel: { quorum: 2, signed_by: [first.agentId] },
        signature: { form: 'hybrid', upgraded_from: { form: 'classical_only' } },
      });
      const decided = await service.post('/v2/dispute/arbitration', resolution(second.agentKeys));
      expect(decided.status, shown(decided)).toBe(200);
      expect(decided.json).toMatchObject({
        panel: { quorum: 2, signed_by: [first.agentId, second.agentId] },
      });
      const read = (await (await fetch(`${service.url}/v2/dispute/arbitration/${id}`)).json()) as Json;
      expect(read['record']).toEqual(own);
      expect(read['signature']).toMatchObject({ form: 'hybrid' });
      const dispute = (await (await fetch(`${service.url}/v2/dispute/record/${id}`)).json()) as Json;
      expect(dispute['state']).toBe('resolved');
    });
  },
);
