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

/** One agent under two principals: `former`'s RPR issued a minute before `current`'s (the same agent keys). */
function handOver() {
  const formerly = buildSignedBundle({ now: new Date(Date.now() - 120_000) });
  const now = buildSignedBundle({ now: new Date(Date.now() - 60_000), keys: { agent: formerly.keys.agent } });
  return { former: partyOf(formerly), current: partyOf(now) };
}

describe.each(dialectsUnderTest())("what a succession record's verified consent covers, on %s", (dialect) => {
  let service: VerifierWithRecords;
  const predecessor = partyOf(buildSignedBundle());
  const testator = partyOf(buildSignedBundle()); // an agent whose testament requires a human's consent
  const human = partyOf(buildSignedBundle()); // a human bound here who is not the predecessor's principal
  const rival = partyOf(buildSignedBundle()); // another agent, of another human, that lists the predecessor's human
  // P560: an agent handed from a former principal to a new one (RPRs issued a minute apart, verified in that order),
  // and another whose newer bundle is verified first and its older one replayed after.
  const handedOver = handOver();
  const replayed = handOver();
  const willed = partyOf(buildSignedBundle()); // P562: an agent whose testament comes after its succession
  const raced = partyOf(buildSignedBundle()); // P562: an agent whose testament and succession race
  const successorId = 'agent:p511-successor';
  let n = 0;

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'p511-succession', {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    });
    const bundles = [
      ...[predecessor, testator, human, rival, willed, raced],
      handedOver.former,
      handedOver.current,
      replayed.current,
      replayed.former,
    ];
    for (const party of bundles) {
      const verified = await service.post('/verify', { signed_bundle: party.built.signed_bundle });
      expect(verified.json['verified']).toBe(true);
      expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
      expect(await service.keyStatusOnce(party.principalKeys.classical.kid, 200)).toBe(200);
    }
  }, 240_000);
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

  it("P560: a former principal whose RPR key was never retired cannot consent for the agent's new principal", async () => {
    for (const { former, current } of [handedOver, replayed]) {
      expect(former.agentId).toBe(current.agentId);
      // The former principal's RPR key is still bound to the agent and to its human (nothing retired it).
      expect(await service.keyStatus(former.principalKeys.classical.kid)).toBe(200);
      // before: 201, stored as `verified`: P542 only asked the key to be bound to the predecessor.
      const byFormer = await service.post(PATH, ceremony(former, { consentBy: former.principalKeys }));
      expect(byFormer.status, shown(byFormer)).toBe(403);
      expect(byFormer.json, shown(byFormer)).toMatchObject({
        error: {
          code: 'FORBIDDEN',
          details: {
            reason: 'human_consent_not_current_principal',
            human_id: former.humanId,
            current_principal: current.humanId,
            predecessor_agent_id: current.agentId,
          },
        },
      });
      const byCurrent = await service.post(PATH, ceremony(current, { consentBy: current.principalKeys }));
      expect(byCurrent.status, shown(byCurrent)).toBe(201);
    }
  });

  it('P601: the principal of an expired RPR consents to nothing until a newer RPR of the agent', async () => {
    const expiresAt = new Date(Date.now() + 3_000);
    const keys = buildSignedBundle().keys;
    const expiring = partyOf(
      buildSignedBundle({
        keys,
        hooks: {
          payloads: (p) => {
            p.responsible_principal_record['expires_at'] = expiresAt.toISOString();
          },
        },
      }),
    );
    const verified = await service.post('/verify', { signed_bundle: expiring.built.signed_bundle });
    expect(verified.json['verified'], shown(verified)).toBe(true);
    expect(await service.keyStatusOnce(expiring.principalKeys.classical.kid, 200)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 100));
    // before: 201, stored `verified`: the expired RPR's human was still the agent's current principal.
    const expired = await service.post(PATH, ceremony(expiring, { consentBy: expiring.principalKeys }));
    expect(expired.status, shown(expired)).toBe(403);
    expect(expired.json, shown(expired)).toMatchObject({
      error: {
        code: 'FORBIDDEN',
        details: {
          reason: 'human_consent_not_current_principal',
          human_id: expiring.humanId,
          current_principal: null,
        },
      },
    });
    // A newer RPR of the same human for the same agent makes it current again.
    const renewed = partyOf(buildSignedBundle({ keys }));
    expect(renewed.agentId).toBe(expiring.agentId);
    expect(renewed.humanId).toBe(expiring.humanId);
    const again = await service.post('/verify', { signed_bundle: renewed.built.signed_bundle });
    expect(again.json['verified'], shown(again)).toBe(true);
    const consented = await service.post(PATH, ceremony(renewed, { consentBy: renewed.principalKeys }));
    expect(consented.status, shown(consented)).toBe(201);
  });

  it("P561: a succession naming a hash that is not its ceremony's stored manifest is 422 E201", async () => {
    const record = ceremony(predecessor, { consent: null });
    const ceremonyOf = {
      predecessor_agent_id: predecessor.agentId,
      successor_agent_id: successorId,
      session_nonce: record['session_nonce'],
    };
    const manifest = signRecord(
      backend,
      PROFILES.proto,
      'memory_transfer_manifest',
      withFields(example('memory_transfer_manifest'), ceremonyOf),
      predecessor.agentKeys,
    );
    const stored = await service.post('/v2/succession/memory-transfer', manifest);
    expect(stored.status, shown(stored)).toBe(201);
    const { composite_sig: _sig, ...payload } = manifest;
    const payloadHash = hashCanonicalV2('sha256', payload);
    if (!payloadHash.ok) throw new Error(payloadHash.error.message);

    // before: 201, stored as `verified` while naming a manifest that is not the one stored for its ceremony.
    const other = `sha256:${'f'.repeat(64)}`;
    const mismatched = await service.post(PATH, resigned(record, { memory_transfer_manifest_hash: other }));
    expect(mismatched.status, shown(mismatched)).toBe(422);
    expect(mismatched.json, shown(mismatched)).toMatchObject({
      error: {
        code: 'PROTO-E201',
        details: {
          reason: 'memory_transfer_manifest_mismatch',
          memory_transfer_manifest_hash: other,
          stored_manifest: { id: stored.json['id'], payload_hash: payloadHash.value },
        },
      },
    });
    // Another ceremony's record naming this manifest by its id: refused too.
    const elsewhere = ceremony(predecessor, {
      consent: null,
      fields: { memory_transfer_manifest_hash: stored.json['id'] },
    });
    const borrowed = await service.post(PATH, elsewhere);
    expect(borrowed.status, shown(borrowed)).toBe(422);
    expect(borrowed.json, shown(borrowed)).toMatchObject({
      error: { code: 'PROTO-E201', details: { reason: 'memory_transfer_manifest_mismatch' } },
    });
    // The ceremony's own manifest, by its D14 id or its payload hash: stored, with no warning.
    for (const named of [stored.json['id'], payloadHash.value]) {
      const own = await service.post(PATH, resigned(record, { memory_transfer_manifest_hash: named }));
      expect(own.status, shown(own)).toBe(201);
      expect(own.json['warnings'], shown(own)).toBeUndefined();
    }
    // A manifest not stored here: stored, with a warning that it was not checked.
    const unknown = await service.post(PATH, ceremony(predecessor, { consent: null }));
    expect(unknown.status, shown(unknown)).toBe(201);
    expect(unknown.json['warnings'], shown(unknown)).toEqual([
      expect.stringContaining('names no memory transfer manifest stored here, so it was not checked'),
    ]);
  });

  const testamentOf = (agent: typeof predecessor, version: number, required: boolean) =>
    signRecord(
      backend,
      PROFILES.proto,
      'digital_testament',
      withFields(example('digital_testament'), {
        agent_id: agent.agentId,
        testament_version: version,
        human_consent_required: required,
      }),
      agent.agentKeys,
    );

  it('P562: a testament requiring a consent, stored after a verified succession without one, is refused', async () => {
    const succession = await service.post(PATH, ceremony(willed, { consent: null }));
    expect(succession.status, shown(succession)).toBe(201);
    // before: 201, the testament's rule standing beside the stored succession that broke it.
    for (const headers of [{}, OPERATOR]) {
      const late = await service.post('/v2/succession/testament', testamentOf(willed, 1, true), headers);
      expect(late.status, shown(late)).toBe(409);
      expect(late.json, shown(late)).toMatchObject({
        error: {
          code: 'CONFLICT',
          details: {
            reason: 'succession_without_consent_stored',
            agent_id: willed.agentId,
            succession_id: succession.json['id'],
          },
        },
      });
    }
    const lax = await service.post('/v2/succession/testament', testamentOf(willed, 1, false));
    expect(lax.status, shown(lax)).toBe(201);
  });

  it('P562: a testament requiring a consent and a succession without one, racing, are never both stored', async () => {
    const [testament, succession] = await Promise.all([
      service.post('/v2/succession/testament', testamentOf(raced, 1, true)),
      service.post(PATH, ceremony(raced, { consent: null })),
    ]);
    const statuses = [testament.status, succession.status].sort();
    expect(statuses, `${shown(testament)} ${shown(succession)}`).toEqual([201, 409]);
  });
});
