// P511–P514 over HTTP against the real verification service on every store dialect: what a verified human consent in a
// succession record covers. The predecessor agent signs the record; the nested HumanConfirmationV2 is the human's, and
// it names no successor and no manifest (its schema is closed: intent_id, session_nonce, human_id, timestamp,
// decision), so the agent decides everything the consent does not sign.
import {
  buildSignedBundle,
  createNativeBackend,
  HUMAN_CONFIRMATION,
  hashCanonicalV2,
  PROFILES,
  signRecord,
} from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import {
  OPERATOR,
  type PartyKeys,
  partyOf,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const backend = createNativeBackend();
const PATH = '/v2/succession/record';

describe.each(dialectsUnderTest())("what a succession record's verified consent covers, on %s", (dialect) => {
  let service: VerifierWithRecords;
  const predecessor = partyOf(buildSignedBundle());
  const testator = partyOf(buildSignedBundle()); // an agent whose testament requires a human's consent
  const human = partyOf(buildSignedBundle()); // a human bound here who is not the predecessor's principal
  const rival = partyOf(buildSignedBundle()); // another agent, of another human, that lists the predecessor's human
  const successorId = 'agent:p511-successor';
  let n = 0;

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'p511-succession', {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    });
    for (const party of [predecessor, testator, human, rival]) {
      const verified = await service.post('/verify', { signed_bundle: party.built.signed_bundle });
      expect(verified.json['verified']).toBe(true);
      expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
      expect(await service.keyStatusOnce(party.principalKeys.classical.kid, 200)).toBe(200);
    }
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 400);
  /** A fresh ceremony of `agent` (its own nonce) consented by `agent`'s own human, signed by `consentBy` when given. */
  const ceremony = (
    agent: typeof predecessor,
    options: { consentBy?: PartyKeys; consent?: Json | null; fields?: Json } = {},
  ): Json => {
    n += 1;
    const nonce = n.toString(16).padStart(64, 'b');
    const record = withFields(example('succession_record'), {
      predecessor_agent_id: agent.agentId,
      successor_agent_id: successorId,
      session_nonce: nonce,
      ceremony_participants: [agent.agentId, successorId, agent.humanId],
      ...options.fields,
    });
    const consent = withFields(example('succession_record')['human_consent'] as Json, {
      human_id: agent.humanId,
      session_nonce: nonce,
      ...(options.consent ?? {}),
    });
    record['human_consent'] =
      options.consent === null
        ? null
        : options.consentBy === undefined
          ? consent
          : signRecord(backend, PROFILES.proto, HUMAN_CONFIRMATION, consent, options.consentBy);
    return signRecord(backend, PROFILES.proto, 'succession_record', record, agent.agentKeys);
  };
  /** `record` with other `fields`, re-signed by `agent` (its nested consent kept byte for byte). */
  const resigned = (record: Json, fields: Json, agent = predecessor): Json => {
    const { composite_sig: _sig, ...unsigned } = record;
    return signRecord(
      backend,
      PROFILES.proto,
      'succession_record',
      { ...unsigned, ...fields },
      agent.agentKeys,
    );
  };

  it("P511: the human's consent reused by the agent for another successor or another manifest is refused", async () => {
    const first = ceremony(predecessor, { consentBy: predecessor.principalKeys });
    const stored = await service.post(PATH, first);
    expect(stored.status, shown(stored)).toBe(201);
    expect(stored.json['signature'], shown(stored)).toMatchObject({ status: 'verified' });
    // before: 201 both, each stored as `verified`: the consent names neither, so it "consented" to both.
    for (const fields of [
      {
        successor_agent_id: 'agent:p511-usurper',
        ceremony_participants: [predecessor.agentId, 'agent:p511-usurper', predecessor.humanId],
      },
      { memory_transfer_manifest_hash: `sha256:${'e'.repeat(64)}` },
    ]) {
      const reused = await service.post(PATH, resigned(first, fields));
      expect(reused.status, shown(reused)).toBe(409);
      expect(reused.json, shown(reused)).toMatchObject({
        error: { code: 'CONFLICT', details: { reason: 'human_consent_already_used' } },
      });
    }
    // The same ceremony re-posted, and re-signed by the agent with the same successor and manifest, still stands.
    const again = await service.post(PATH, first);
    expect(again.status, shown(again)).toBe(200);
    const sameCeremony = await service.post(PATH, resigned(first, { transition_type: 'forced' }));
    expect(sameCeremony.status, shown(sameCeremony)).toBe(201);
  });

  it("P512: a succession record whose human's verified consent says deny is refused, and nothing is stored", async () => {
    // before: 201, stored as a `verified` succession with the human's refusal inside.
    const denied = ceremony(predecessor, {
      consentBy: predecessor.principalKeys,
      consent: { decision: 'deny' },
    });
    const answer = await service.post(PATH, denied);
    expect(answer.status, shown(answer)).toBe(409);
    expect(answer.json, shown(answer)).toMatchObject({
      error: { code: 'CONFLICT', details: { reason: 'human_consent_denied', human_id: predecessor.humanId } },
    });
    const byOperator = await service.post(PATH, denied, OPERATOR); // P499: the operator's word, stored as given
    expect(byOperator.status, shown(byOperator)).toBe(201);
  });

  it("P513: a testament's human_consent_required is enforced on the agent's later succession records", async () => {
    const testament = signRecord(
      backend,
      PROFILES.proto,
      'digital_testament',
      withFields(example('digital_testament'), { agent_id: testator.agentId, human_consent_required: true }),
      testator.agentKeys,
    );
    const registered = await service.post('/v2/succession/testament', testament);
    expect(registered.status, shown(registered)).toBe(201);
    // before: 201 both, a consent the testament requires absent or null.
    for (const record of [
      ceremony(testator, { consent: null }),
      (() => {
        const { human_consent: _c, ...rest } = ceremony(testator, { consent: null });
        return resigned(rest, {}, testator);
      })(),
    ]) {
      const answer = await service.post(PATH, record);
      expect(answer.status, shown(answer)).toBe(409);
      expect(answer.json, shown(answer)).toMatchObject({
        error: {
          code: 'CONFLICT',
          details: { reason: 'human_consent_required', agent_id: testator.agentId },
        },
      });
    }
    const consented = await service.post(PATH, ceremony(testator, { consentBy: testator.principalKeys }));
    expect(consented.status, shown(consented)).toBe(201);
    // An agent whose testament does not say so (here: none) is succeeded without a consent, as before.
    const free = await service.post(PATH, ceremony(predecessor, { consent: null }));
    expect(free.status, shown(free)).toBe(201);
  });

  it('P514: one signed payload is stored once under its D14 content id, whatever signature it carries', async () => {
    const strip = (record: Json): Json => ({
      ...record,
      composite_sig: { ...(record['composite_sig'] as Json), pq: null, binding: 'classical_only' },
    });
    const d14 = (record: Json) => {
      const hash = hashCanonicalV2('sha256', record);
      if (!hash.ok) throw new Error(hash.error.message);
      return hash.value;
    };
    const record = ceremony(predecessor, { consentBy: predecessor.principalKeys });
    const first = await service.post(PATH, record);
    expect(first.status, shown(first)).toBe(201);
    expect(first.json['id']).toBe(d14(record)); // D14: the whole record, signature included
    // before: 201 under a second id (its own D14 id), a second copy of one ceremony.
    const copy = await service.post(PATH, strip(record));
    expect(copy.status, shown(copy)).toBe(409);
    expect(copy.json, shown(copy)).toMatchObject({
      error: { code: 'CONFLICT', details: { reason: 'payload_already_stored', id: first.json['id'] } },
    });
    expect((await fetch(`${service.url}${PATH}/${d14(strip(record))}`)).status).toBe(404);
    // The operator's unsigned copy of the same payload is a second copy too (P44 lets it leave the signature out).
    const { composite_sig: _sig, ...unsigned } = record;
    const byOperator = await service.post(PATH, unsigned, OPERATOR);
    expect(byOperator.status, shown(byOperator)).toBe(409);
    expect(byOperator.json, shown(byOperator)).toMatchObject({
      error: { details: { reason: 'payload_already_stored', id: first.json['id'] } },
    });

    // A stripped copy posted first does not squat the owner's record: P446 upgrades it, the owner's keeps its own id.
    const later = ceremony(predecessor, { consentBy: predecessor.principalKeys });
    const squat = await service.post(PATH, strip(later));
    expect(squat.status, shown(squat)).toBe(201);
    expect(squat.json['id']).toBe(d14(strip(later)));
    const owner = await service.post(PATH, later);
    expect(owner.status, shown(owner)).toBe(201);
    expect(owner.json['id']).toBe(d14(later));
    expect(owner.json['signature']).toMatchObject({
      form: 'hybrid',
      upgraded_from: { form: 'classical_only', id: squat.json['id'] },
    });
    // The stripped copy's id answers the owner's record, under its own id.
    for (const id of [squat.json['id'], owner.json['id']]) {
      const got = await fetch(`${service.url}${PATH}/${String(id)}`);
      expect(got.status).toBe(200);
      expect(await got.json()).toMatchObject({ id: owner.json['id'], record: later });
    }
    // The stripped copy again: refused, the owner's record kept.
    const again = await service.post(PATH, strip(later));
    expect(again.status, shown(again)).toBe(409);

    const manifest = signRecord(
      backend,
      PROFILES.proto,
      'memory_transfer_manifest',
      withFields(example('memory_transfer_manifest'), {
        predecessor_agent_id: predecessor.agentId,
        successor_agent_id: successorId,
        session_nonce: 'c'.repeat(64),
      }),
      predecessor.agentKeys,
    );
    const m1 = await service.post('/v2/succession/memory-transfer', manifest);
    expect(m1.status, shown(m1)).toBe(201);
    const m2 = await service.post('/v2/succession/memory-transfer', strip(manifest));
    expect(m2.status, shown(m2)).toBe(409);
  });

  it("P542: another agent listing the predecessor's human cannot spend the consent given for the predecessor's ceremony", async () => {
    const genuine = ceremony(predecessor, { consentBy: predecessor.principalKeys });
    // The rival copies the consent (its human listed, the same nonce) into a succession of its own, signed by itself.
    const spent = resigned(
      genuine,
      {
        predecessor_agent_id: rival.agentId,
        ceremony_participants: [rival.agentId, successorId, predecessor.humanId],
      },
      rival,
    );
    // before: 201, the consent spent on the rival's succession; the genuine ceremony then 409 human_consent_already_used.
    const answer = await service.post(PATH, spent);
    expect(answer.status, shown(answer)).toBe(403);
    expect(answer.json, shown(answer)).toMatchObject({
      error: {
        code: 'FORBIDDEN',
        details: {
          reason: 'human_consent_not_predecessor_principal',
          human_id: predecessor.humanId,
          predecessor_agent_id: rival.agentId,
        },
      },
    });
    // A human bound here who is not the predecessor's principal, listed and signing for its ceremony: refused.
    const stranger = ceremony(predecessor, {
      consentBy: human.principalKeys,
      consent: { human_id: human.humanId },
      fields: { ceremony_participants: [predecessor.agentId, successorId, human.humanId] },
    });
    const strangers = await service.post(PATH, stranger);
    expect(strangers.status, shown(strangers)).toBe(403);
    expect(strangers.json, shown(strangers)).toMatchObject({
      error: {
        details: { reason: 'human_consent_not_predecessor_principal', human_id: human.humanId },
      },
    });
    const stored = await service.post(PATH, genuine);
    expect(stored.status, shown(stored)).toBe(201);
    expect(stored.json['signature'], shown(stored)).toMatchObject({ status: 'verified' });
  });
});
