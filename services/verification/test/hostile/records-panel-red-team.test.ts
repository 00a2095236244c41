// The records red team's moves against M-of-N panels (P297), over HTTP against the real verification service with the
// /v2 records mounted, on every store dialect. The operator appointed three arbitrators and asked for two signatures
// of each resolution (RECORDS_ARBITRATORS, RECORDS_PANEL_QUORUM=2); one appointed member acts alone.
import {
  buildSignedBundle,
  createNativeBackend,
  generateBundleKeys,
  keyEntry,
  PROFILES,
  signRecord,
} from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import {
  commissionOwnAgent,
  type PanelFixture,
  partyOf,
  startPanelFixture,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const backend = createNativeBackend();
type Party = ReturnType<typeof partyOf>;
type Keys = Party['agentKeys'];
const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };

describe.each(dialectsUnderTest())('one member of an M-of-N panel acting alone, on %s', (dialect) => {
  let f: PanelFixture;
  let service: VerifierWithRecords;
  let first: Party;
  let second: Party;
  let third: Party;

  const shown = (answer: { json: Json }) => f.shown(answer);
  const sign = (kind: string, record: Json, keys: Keys) => f.sign(kind, record, keys);
  const get = (path: string) => f.get(path);
  const file = (id: string, fields: Json = {}) => f.file(id, fields);
  const panel = () => [first.agentId, second.agentId, third.agentId];
  const resolution = (id: string, text: string, keys: Keys, timestamp = '2026-06-05T12:00:00Z') =>
    f.resolution(id, text, keys, { timestamp });

  beforeAll(async () => {
    f = await startPanelFixture(dialect, 'v2-panel-red-team');
    ({ service, first, second, third } = f);
  }, 180_000);
  afterAll(async () => {
    await f?.service.close();
  });

  it("P371: an appeal's outcome signed by one member of a two-member quorum is pending, a second member decides it", async () => {
    const id = 'dispute:p371-appeal-one-member';
    // The decision appealed: the operator's, stored before the dispute was filed here (D22, P267, P296).
    const decision = sign(
      'arbitration_resolution',
      withFields(example('arbitration_resolution'), {
        dispute_id: id,
        arbitrator_ids: panel(),
        resolution: 'The initiator keeps the ledger.',
        timestamp: '2026-06-02T09:00:00Z',
      }),
      first.agentKeys,
    );
    const decided = await service.post('/v2/dispute/arbitration', decision, OPERATOR);
    expect(decided.status, shown(decided)).toBe(201);
    await file(id, { status: 'appealed', escalation_level: 'human_appeal' });

    // One appointed member alone posts the appeal's outcome.
    const outcome = resolution(id, 'On appeal: split it.', first.agentKeys);
    const alone = await service.post('/v2/dispute/arbitration', outcome);
    expect(alone.status, shown(alone)).toBe(201);
    // Before P371: stored as the appeal's decided outcome, no panel counted (one signature of a quorum of two).
    expect(alone.json, shown(alone)).toMatchObject({
      appeal_outcome: true,
      panel: { quorum: 2, signed_by: [first.agentId] },
    });
    const pendingDispute = await get(`/v2/dispute/record/${id}`);
    expect(pendingDispute.json, shown(pendingDispute)).toMatchObject({
      appeal_outcome: { id, panel: { quorum: 2, signed_by: [first.agentId] } },
    });
    const pendingResolution = await get(`/v2/dispute/arbitration/${id}`);
    expect(pendingResolution.json, shown(pendingResolution)).toMatchObject({
      record: decision,
      appeal_outcome: { record: outcome, panel: { quorum: 2, signed_by: [first.agentId] } },
    });

    // The same member again, with its principal's key (bound to it too): still one member.
    const again = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, 'On appeal: split it.', first.principalKeys),
    );
    expect(again.status, shown(again)).toBe(200);
    expect(again.json).toMatchObject({ panel: { quorum: 2, signed_by: [first.agentId] } });

    // A second member's signature of the same outcome is counted: the appeal is decided, the stored copy unchanged.
    const two = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, 'On appeal: split it.', second.agentKeys),
    );
    expect(two.status, shown(two)).toBe(200);
    expect(two.json).toMatchObject({
      appeal_outcome: true,
      record: outcome,
      panel: { quorum: 2, signed_by: [first.agentId, second.agentId] },
    });
    const decidedDispute = await get(`/v2/dispute/record/${id}`);
    expect(decidedDispute.json, shown(decidedDispute)).toMatchObject({
      state: 'resolved',
      appeal_outcome: { id, panel: { quorum: 2, signed_by: [first.agentId, second.agentId] } },
    });
  });

  it('P372: a member who posts first a text the others will not sign does not block them: their identical text resolves', async () => {
    const id = 'dispute:p372-rogue-first';
    await file(id);
    // The rogue member posts first: its text is stored under the dispute id, counted once, pending.
    const rogue = resolution(id, 'The respondent pays everything.', third.agentKeys);
    const first_ = await service.post('/v2/dispute/arbitration', rogue);
    expect(first_.status, shown(first_)).toBe(201);
    expect(first_.json).toMatchObject({ panel: { quorum: 2, signed_by: [third.agentId] } });

    // The two other members sign another text, each its own copy.
    const agreed = 'Ledger writes alternate in 15-minute windows.';
    const one = await service.post('/v2/dispute/arbitration', resolution(id, agreed, first.agentKeys));
    // Before P372: 409, whatever the others sign the dispute stays pending for good.
    expect(one.status, shown(one)).toBe(201);
    expect(one.json).toMatchObject({ panel: { quorum: 2, signed_by: [first.agentId] } });
    expect((await get(`/v2/dispute/record/${id}`)).json).toMatchObject({ state: 'open' });

    const two = await service.post('/v2/dispute/arbitration', resolution(id, agreed, second.agentKeys));
    expect(two.status, shown(two)).toBe(200);
    expect(two.json).toMatchObject({ panel: { quorum: 2, signed_by: [first.agentId, second.agentId] } });

    const dispute = await get(`/v2/dispute/record/${id}`);
    expect(dispute.json, shown(dispute)).toMatchObject({
      state: 'resolved',
      resolution: { id, panel: { quorum: 2, signed_by: [first.agentId, second.agentId] } },
    });
    const decided = await get(`/v2/dispute/arbitration/${id}`);
    expect(decided.status, shown(decided)).toBe(200);
    expect((decided.json['record'] as Json)['resolution']).toBe(agreed);
    expect(decided.json).toMatchObject({
      panel: { quorum: 2, signed_by: [first.agentId, second.agentId] },
      signature: { status: 'verified', kid: first.agentKeys.classical.kid },
    });

    // Decided: the rogue text takes no further signature, and no third text is taken.
    const late = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, 'The respondent pays everything.', second.principalKeys),
    );
    expect(late.status, shown(late)).toBe(409);
    const third_ = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, 'Something else.', third.agentKeys),
    );
    expect(third_.status, shown(third_)).toBe(409);
    expect((await get(`/v2/dispute/arbitration/${id}`)).json['record']).toEqual(decided.json['record']);
  });

  it("P373: the operator's administrative resolution settles a dispute a panel left pending (D22)", async () => {
    const id = 'dispute:p373-operator-settles';
    await file(id);
    const rogue = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, 'The respondent pays everything.', third.agentKeys),
    );
    expect(rogue.status, shown(rogue)).toBe(201);
    const byOperator = resolution(id, 'Split it, by the operator.', first.agentKeys);
    const settled = await service.post('/v2/dispute/arbitration', byOperator, OPERATOR);
    // Before P373: 409, so nobody at all could resolve the dispute any more.
    expect(settled.status, shown(settled)).toBe(201);
    expect(settled.json).toMatchObject({ signature: { status: 'administrative' } });
    expect((await service.post('/v2/dispute/arbitration', byOperator, OPERATOR)).status).toBe(200);
    expect((await get(`/v2/dispute/record/${id}`)).json).toMatchObject({
      state: 'resolved',
      resolution: { id },
    });
    const decided = await get(`/v2/dispute/arbitration/${id}`);
    expect(decided.json, shown(decided)).toMatchObject({
      record: byOperator,
      signature: { status: 'administrative' },
    });
    // The pending text cannot overtake it any more.
    const late = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, 'The respondent pays everything.', second.agentKeys),
    );
    expect(late.status, shown(late)).toBe(409);
    expect((await get(`/v2/dispute/arbitration/${id}`)).json['record']).toEqual(byOperator);
  });

  it("P378: a member's first appeal outcome the others will not sign does not block them: their identical text decides", async () => {
    const id = 'dispute:p378-appeal-rogue-first';
    const decision = resolution(
      id,
      'The initiator keeps the ledger.',
      first.agentKeys,
      '2026-06-02T09:00:00Z',
    );
    expect((await service.post('/v2/dispute/arbitration', decision, OPERATOR)).status).toBe(201);
    await file(id, { status: 'appealed', escalation_level: 'human_appeal' });

    const rogue = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, 'On appeal: the respondent pays everything.', third.agentKeys),
    );
    expect(rogue.status, shown(rogue)).toBe(201);
    expect(rogue.json).toMatchObject({ appeal_outcome: true, panel: { signed_by: [third.agentId] } });

    const agreed = 'On appeal: split it.';
    const one = await service.post('/v2/dispute/arbitration', resolution(id, agreed, first.agentKeys));
    // Before P378: 409, the appeal stayed undecided whatever the other members signed.
    expect(one.status, shown(one)).toBe(201);
    expect(one.json).toMatchObject({ appeal_outcome: true, panel: { signed_by: [first.agentId] } });
    const two = await service.post('/v2/dispute/arbitration', resolution(id, agreed, second.agentKeys));
    expect(two.status, shown(two)).toBe(200);
    expect(two.json).toMatchObject({
      appeal_outcome: true,
      panel: { quorum: 2, signed_by: [first.agentId, second.agentId] },
    });

    const decided = await get(`/v2/dispute/arbitration/${id}`);
    expect(decided.json['record']).toEqual(decision);
    const outcome = decided.json['appeal_outcome'] as Json;
    expect((outcome['record'] as Json)['resolution'], shown(decided)).toBe(agreed);
    expect(outcome).toMatchObject({ panel: { quorum: 2, signed_by: [first.agentId, second.agentId] } });
    const dispute = await get(`/v2/dispute/record/${id}`);
    expect(dispute.json, shown(dispute)).toMatchObject({
      state: 'resolved',
      appeal_outcome: { id, panel: { quorum: 2, signed_by: [first.agentId, second.agentId] } },
    });
    // Decided: no further text.
    const late = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, 'On appeal: the respondent pays everything.', second.principalKeys),
    );
    expect(late.status, shown(late)).toBe(409);
  });
});

describe.each(dialectsUnderTest())('an arbitrator id outside the id pattern, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const initiator = partyOf(buildSignedBundle());
  const respondent = partyOf(buildSignedBundle());
  // A passport's agent_id has no pattern: this agent's id is "agent:аrbiter-01" with a Cyrillic "а" (U+0430), the
  // look-alike of an arbitrator readers know, and its bundle verifies, so its key is bound to that id.
  const LOOK_ALIKE = 'agent:\u0430rbiter-01';
  const impostor = partyOf(
    buildSignedBundle({
      hooks: {
        payloads: (payloads) => {
          (payloads.agent_passport as Json)['agent_id'] = LOOK_ALIKE;
          (payloads.intent as Json)['agent_id'] = LOOK_ALIKE;
        },
        entry: (entry) => {
          entry['agent_id'] = LOOK_ALIKE;
        },
      },
    }),
  );
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 500);
  const sign = (kind: string, record: Json, keys: Keys) =>
    signRecord(backend, PROFILES.proto, kind, record, keys);

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-arbitrator-id-pattern', {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    });
    for (const party of [initiator, respondent, impostor]) {
      const verified = await service.post('/verify', { signed_bundle: party.built.signed_bundle });
      expect(verified.json['verified'], shown(verified)).toBe(true);
      expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
    }
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('P374: a resolution naming an arbitrator id outside ^[\\w:.\\-]{1,256}$ is 400 E002 (reason INVALID_ID, P518), signed or not', async () => {
    expect(impostor.agentId).toBe(LOOK_ALIKE);
    const id = 'dispute:p374-look-alike';
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
    const forged = sign(
      'arbitration_resolution',
      withFields(example('arbitration_resolution'), {
        dispute_id: id,
        arbitrator_ids: [LOOK_ALIKE],
        resolution: 'The initiator keeps the ledger.',
      }),
      impostor.agentKeys,
    );
    const answer = await service.post('/v2/dispute/arbitration', forged);
    // Before P374: 201, stored `verified` as the resolution of arbitrator "agent:аrbiter-01".
    expect(answer.status, shown(answer)).toBe(400);
    expect(answer.json).toMatchObject({
      error: { code: 'PROTO-E002', details: [{ reason: 'INVALID_ID', field: '/arbitrator_ids/0' }] },
    });
    const byOperator = await service.post('/v2/dispute/arbitration', forged, OPERATOR);
    expect(byOperator.status, shown(byOperator)).toBe(400);
    for (const bad of ['agent:arbiter 01', 'agent:arbiter-01\u0000', 'x'.repeat(257), '../agent']) {
      const other = await service.post(
        '/v2/dispute/arbitration',
        withFields(forged, { arbitrator_ids: ['agent:arbiter-panel-3', bad] }),
        OPERATOR,
      );
      expect(other.status, shown(other)).toBe(400);
      expect(other.json).toMatchObject({
        error: { code: 'PROTO-E002', details: [{ reason: 'INVALID_ID', field: '/arbitrator_ids/1' }] },
      });
    }
    expect((await fetch(`${service.url}/v2/dispute/arbitration/${id}`)).status).toBe(404);
  });
});

describe.each(dialectsUnderTest())("the respondent's own principal as its judge, on %s", (dialect) => {
  let service: VerifierWithRecords;
  const initiator = partyOf(buildSignedBundle());
  // The respondent's bundle is verified here (its principal H's RPR key K1 bound to H and to the respondent), but the
  // respondent is not commissioned here, so no certificate names H as its principal.
  const respondent = partyOf(buildSignedBundle());
  const human = respondent.humanId;
  // H rotates: a bundle of another agent of H, its RPR signed by K1 (so it speaks for H) listing a new key K2 beside
  // K1. K2 is bound to H and that other agent, not to the respondent.
  const k2 = generateBundleKeys(backend);
  const sibling = partyOf(
    buildSignedBundle({
      keys: { principal: respondent.built.keys.principal, agent: generateBundleKeys(backend) },
      hooks: {
        payloads: (payloads) => {
          const rpr = payloads.responsible_principal_record as Json;
          rpr['human_id'] = human;
          (payloads.agent_passport as Json)['principal_binding_reference'] = human;
          (payloads.intent as Json)['human_id'] = human;
          const listed = rpr['binding_keys'] as Json[];
          const at = listed[0]?.['created_at'] as string;
          const until = (listed[0]?.['expires_at'] ?? null) as string | null;
          rpr['binding_keys'] = [
            ...listed,
            keyEntry(k2.classical, at, until),
            ...(k2.pq === undefined ? [] : [keyEntry(k2.pq, at, until)]),
          ];
        },
      },
    }),
  );
  const k2Keys = { classical: k2.classical, ...(k2.pq === undefined ? {} : { pq: k2.pq }) };
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 500);
  const sign = (kind: string, record: Json, keys: Keys) =>
    signRecord(backend, PROFILES.proto, kind, record, keys);

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-principal-judge', {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      // The operator appointed H to arbitrate (for other people's disputes).
      RECORDS_ARBITRATORS: `${human},agent:arbiter-panel-3`,
    });
    for (const party of [initiator, respondent, sibling]) {
      const verified = await service.post('/verify', { signed_bundle: party.built.signed_bundle });
      expect(verified.json['verified'], shown(verified)).toBe(true);
      expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
    }
    expect(await service.keyStatusOnce(k2.classical.kid, 200)).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('P375: the principal of a party, known by its bound RPR keys, neither sits on the panel nor signs', async () => {
    expect(sibling.humanId).toBe(human);
    const k2Binding = (await (await fetch(`${service.url}/v2/keys/${k2.classical.kid}`)).json()) as Json;
    const subjects = (k2Binding['bindings'] as Json[]).map((b) => b['subject']);
    expect(subjects).toContain(human);
    expect(subjects).not.toContain(respondent.agentId);

    const id = 'dispute:p375-own-principal';
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
    const ruling = sign(
      'arbitration_resolution',
      withFields(example('arbitration_resolution'), {
        dispute_id: id,
        arbitrator_ids: [human],
        resolution: 'The respondent keeps the ledger.',
      }),
      k2Keys,
    );
    const answer = await service.post('/v2/dispute/arbitration', ruling);
    // Before P375: 201, the respondent's own principal resolved the dispute against the initiator, `verified`.
    expect(answer.status, shown(answer)).toBe(403);
    expect(answer.json).toMatchObject({
      error: { code: 'FORBIDDEN', details: { dispute_id: id, party: human } },
    });
    expect((await fetch(`${service.url}/v2/dispute/arbitration/${id}`)).status).toBe(404);
  });
});

describe.each(dialectsUnderTest())('a human and its own agent on one panel, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const initiator = partyOf(buildSignedBundle());
  const respondent = partyOf(buildSignedBundle());
  // One bundle: the agent's passport keys (bound to the agent) and its principal's RPR keys (bound to the human and
  // the agent). The operator appointed both ids, and a third arbitrator, with a quorum of two.
  const duo = partyOf(buildSignedBundle());
  const other = partyOf(buildSignedBundle());
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 500);
  const sign = (kind: string, record: Json, keys: Keys) =>
    signRecord(backend, PROFILES.proto, kind, record, keys);

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-panel-kin', {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      RECORDS_ARBITRATORS: [duo.humanId, duo.agentId, other.agentId].join(','),
      RECORDS_PANEL_QUORUM: '2',
    });
    for (const party of [initiator, respondent, duo, other]) {
      const verified = await service.post('/verify', { signed_bundle: party.built.signed_bundle });
      expect(verified.json['verified'], shown(verified)).toBe(true);
      expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
    }
    expect(await service.keyStatusOnce(duo.principalKeys.classical.kid, 200)).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('P376: a human and the agent its bundle binds it to count as one member of a quorum', async () => {
    const id = 'dispute:p376-human-and-agent';
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
    const ruling = (keys: Keys) =>
      sign(
        'arbitration_resolution',
        withFields(example('arbitration_resolution'), {
          dispute_id: id,
          // The human first: its RPR key (bound to the human and the agent) is counted for the human.
          arbitrator_ids: [duo.humanId, duo.agentId, other.agentId],
          resolution: 'The respondent keeps the ledger.',
        }),
        keys,
      );
    const byHuman = await service.post('/v2/dispute/arbitration', ruling(duo.principalKeys));
    expect(byHuman.status, shown(byHuman)).toBe(201);
    expect(byHuman.json).toMatchObject({ panel: { quorum: 2, signed_by: [duo.humanId] } });
    // The same holder signs again with the agent's passport key.
    const byAgent = await service.post('/v2/dispute/arbitration', ruling(duo.agentKeys));
    expect(byAgent.status, shown(byAgent)).toBe(200);
    // Before P376: signed_by [human, agent], and the dispute resolved on one bundle holder's two keys.
    expect(byAgent.json, JSON.stringify(byAgent.json['panel'])).toMatchObject({
      panel: { quorum: 2, signed_by: [duo.humanId] },
    });
    const dispute = (await (await fetch(`${service.url}/v2/dispute/record/${id}`)).json()) as Json;
    expect(dispute, JSON.stringify(dispute).slice(0, 300)).toMatchObject({ state: 'open' });

    // Another appointed arbitrator's signature is the second member.
    const byOther = await service.post('/v2/dispute/arbitration', ruling(other.agentKeys));
    expect(byOther.json).toMatchObject({ panel: { quorum: 2, signed_by: [duo.humanId, other.agentId] } });
  });
});

describe.each(dialectsUnderTest())(
  "a record's PQ half stripped and its binding downgraded, under VERIFIER_MODE=hybrid_required, on %s",
  (dialect) => {
    let service: VerifierWithRecords;
    const owner = partyOf(buildSignedBundle());
    const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 500);
    const declaration = (party: Party, id: string) =>
      signRecord(
        backend,
        PROFILES.proto,
        'rights_declaration',
        withFields(example('rights_declaration'), { declaration_id: id, agent_id: party.agentId }),
        party.agentKeys,
      );
    const downgraded = (record: Json): Json => ({
      ...record,
      composite_sig: { ...(record['composite_sig'] as Json), pq: null, binding: 'classical_only' },
    });

    beforeAll(async () => {
      // The operator's floor: every bundle /verify accepts carries both halves.
      service = await startVerifierWithRecords(dialect, 'v2-pq-stripped', {
        OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
        VERIFIER_MODE: 'hybrid_required',
      });
      const verified = await service.post('/verify', { signed_bundle: owner.built.signed_bundle });
      expect(verified.json['verified'], shown(verified)).toBe(true);
      expect(await service.keyStatusOnce(owner.agentKeys.classical.kid, 200)).toBe(200);
      // A classical-only bundle is no bundle this service accepts.
      const classical = buildSignedBundle({ classicalOnly: true });
      const refused = await service.post('/verify', { signed_bundle: classical.signed_bundle });
      expect(refused.json['verified'], shown(refused)).toBe(false);
    }, 180_000);
    afterAll(async () => {
      await service?.close();
    });

    it('P377: a record signed classical-only (a hybrid signature stripped of its PQ half) is 400 PROTO-E102', async () => {
      const original = declaration(owner, 'rights:p377-owner');
      expect((original['composite_sig'] as Json)['binding']).toBe('pq_over_classical');
      // Whoever saw the signed record before it was posted strips the ML-DSA half and posts it first.
      const stripped = await service.post('/v2/rights/declaration', downgraded(original));
      // Before P377: 201, stored `verified` with the half /verify would refuse, and the owner's own record then 409.
      expect(stripped.status, shown(stripped)).toBe(400);
      expect(stripped.json).toMatchObject({ error: { code: 'PROTO-E102' } });
      const posted = await service.post('/v2/rights/declaration', original);
      expect(posted.status, shown(posted)).toBe(201);
      expect(posted.json['record']).toEqual(original);
      // The operator's administrative write is no signature check: it stores what it is given (D22, P44).
      const byOperator = await service.post(
        '/v2/rights/declaration',
        downgraded(declaration(owner, 'rights:p377-operator')),
        OPERATOR,
      );
      expect(byOperator.status, shown(byOperator)).toBe(201);
    });
  },
);

describe.each(dialectsUnderTest())('vitality reports of a decommissioned agent, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const agent = partyOf(buildSignedBundle());
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 500);
  const sign = (kind: string, record: Json, keys: Keys) =>
    signRecord(backend, PROFILES.proto, kind, record, keys);

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-vitality-after-end', {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    });
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('P379: after its decommissioning an agent reports no other state than decommissioned (D16: final)', async () => {
    const own = await commissionOwnAgent(service, agent);
    const start = Date.now() + 1000;
    const at = (offsetMs: number) => new Date(start + offsetMs).toISOString();
    expect((await own.move({ agent_id: agent.agentId, to_state: 'active', timestamp: at(0) })).status).toBe(
      200,
    );
    const first = sign(
      'vitality_report',
      withFields(example('vitality_report'), {
        agent_id: agent.agentId,
        timestamp: at(1000),
        state: 'active',
      }),
      agent.agentKeys,
    );
    const reported = await service.post('/v2/lifecycle/vitality', first);
    expect(reported.status, shown(reported)).toBe(201);
    const ended = await service.post(
      '/v2/lifecycle/decommission',
      sign(
        'decommissioning_record',
        withFields(example('decommissioning_record'), {
          agent_id: agent.agentId,
          human_id: agent.humanId,
          successor_agent_id: null,
          timestamp: at(2000),
        }),
        agent.agentKeys,
      ),
    );
    expect(ended.status, shown(ended)).toBe(201);
    expect(await own.state()).toBe('decommissioned');

    // The agent's key, still bound, goes on reporting a healthy, active agent.
    const alive = sign(
      'vitality_report',
      withFields(example('vitality_report'), {
        agent_id: agent.agentId,
        timestamp: at(3000),
        state: 'active',
        vitality_score: 990,
        prev_report_hash: reported.json['report_hash'],
      }),
      agent.agentKeys,
    );
    const after = await service.post('/v2/lifecycle/vitality', alive);
    // Before P379: 201, and GET /v2/lifecycle/vitality/<agent> answered an `active` agent at 990.
    expect(after.status, shown(after)).toBe(409);
    expect(after.json).toMatchObject({
      error: { code: 'CONFLICT', details: { current_state: 'decommissioned', reported_state: 'active' } },
    });
    const latest = (await (
      await fetch(`${service.url}/v2/lifecycle/vitality/${agent.agentId}`)
    ).json()) as Json;
    expect(latest['record']).toEqual(first);

    // A final report that says what the agent is, is still taken.
    const final = sign(
      'vitality_report',
      withFields(example('vitality_report'), {
        agent_id: agent.agentId,
        timestamp: at(3000),
        state: 'decommissioned',
        vitality_score: 0,
        prev_report_hash: reported.json['report_hash'],
      }),
      agent.agentKeys,
    );
    const last = await service.post('/v2/lifecycle/vitality', final);
    expect(last.status, shown(last)).toBe(201);
  });
});
