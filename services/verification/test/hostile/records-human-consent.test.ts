// P497–P498 over HTTP against the real verification service on every store dialect: a predecessor agent signs its
// succession record and claims, in its `human_consent`, that a human consented. The consent carries its own composite
// signature (context HumanConfirmation), and only that signature, by the human's bound key, shows the human's word.
import {
  buildSignedBundle,
  createNativeBackend,
  HUMAN_CONFIRMATION,
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

describe.each(dialectsUnderTest())('a succession record claiming a human consent, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const predecessor = partyOf(buildSignedBundle());
  // P542: the consenting human is the predecessor's own principal (its RPR binding keys bound to both ids).
  const human = { humanId: predecessor.humanId, principalKeys: predecessor.principalKeys };
  const successorId = 'agent:p497-successor';
  let n = 0;

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'p497-consent', {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    });
    const verified = await service.post('/verify', { signed_bundle: predecessor.built.signed_bundle });
    expect(verified.json['verified']).toBe(true);
    expect(await service.keyStatusOnce(predecessor.agentKeys.classical.kid, 200)).toBe(200);
    expect(await service.keyStatusOnce(predecessor.principalKeys.classical.kid, 200)).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 400);
  /** A fresh ceremony (its own nonce, so each record has its own content id) with `consent` (undefined: absent). */
  const ceremony = (consent: Json | null | undefined, fields: Json = {}): Json => {
    n += 1;
    const nonce = n.toString(16).padStart(64, 'a');
    const record = withFields(example('succession_record'), {
      predecessor_agent_id: predecessor.agentId,
      successor_agent_id: successorId,
      session_nonce: nonce,
      ceremony_participants: [predecessor.agentId, successorId, human.humanId],
      ...fields,
    });
    if (consent === undefined) delete record['human_consent'];
    else record['human_consent'] = consent === null ? null : { ...consent, session_nonce: nonce };
    return record;
  };
  /** The example's consent, for `human`, with its placeholder signature (signed by nobody). */
  const forgedConsent = (): Json =>
    withFields(example('succession_record')['human_consent'] as Json, { human_id: human.humanId });
  const signConsent = (consent: Json, keys: PartyKeys) =>
    signRecord(backend, PROFILES.proto, HUMAN_CONFIRMATION, consent, keys);
  /** `record` with its consent signed by `keys` (after its nonce is set), then signed by the predecessor agent. */
  const signedBy = (record: Json, consentKeys?: PartyKeys): Json => {
    const consent = record['human_consent'];
    const withConsent =
      consentKeys === undefined || typeof consent !== 'object' || consent === null
        ? record
        : { ...record, human_consent: signConsent(consent as Json, consentKeys) };
    return signRecord(backend, PROFILES.proto, 'succession_record', withConsent, predecessor.agentKeys);
  };
  /** Refused, then stored as new by the operator: proof the refused write left nothing behind. */
  const expectRefusedAndNothingStored = async (record: Json, status: number, code: string) => {
    const answer = await service.post(PATH, record);
    expect(answer.status, shown(answer)).toBe(status);
    expect(answer.json).toMatchObject({ error: { code } });
    const byOperator = await service.post(PATH, record, OPERATOR);
    expect(byOperator.status, shown(byOperator)).toBe(201);
  };

  it('P497: a consent whose signature nobody here can check (unknown kids) is refused', async () => {
    // before: 201 and stored as `verified`.
    await expectRefusedAndNothingStored(signedBy(ceremony(forgedConsent())), 403, 'FORBIDDEN');
  });

  it("P497: the agent signing the human's consent with its own keys is refused", async () => {
    // before: 201, the agent's word stored as the human's.
    await expectRefusedAndNothingStored(
      signedBy(ceremony(forgedConsent()), predecessor.agentKeys),
      403,
      'FORBIDDEN',
    );
  });

  it('P497: a consent signed by the human and then altered (deny turned into approve) is refused', async () => {
    // before: 201.
    const denied = signedBy(ceremony(withFields(forgedConsent(), { decision: 'deny' })), human.principalKeys);
    const turned = {
      ...denied,
      human_consent: { ...(denied['human_consent'] as Json), decision: 'approve' },
    };
    await expectRefusedAndNothingStored(
      signRecord(backend, PROFILES.proto, 'succession_record', turned, predecessor.agentKeys),
      400,
      'PROTO-E100',
    );
  });

  it("P498: the human's genuine consent lifted into another ceremony (other nonce, or human not a participant) is refused", async () => {
    // before: 201 both.
    const genuine = signedBy(ceremony(forgedConsent()), human.principalKeys);
    const elsewhere = ceremony(null);
    const lifted = signRecord(
      backend,
      PROFILES.proto,
      'succession_record',
      { ...elsewhere, human_consent: genuine['human_consent'] },
      predecessor.agentKeys,
    );
    await expectRefusedAndNothingStored(lifted, 400, 'PROTO-E002');
    const absentHuman = signedBy(
      ceremony(forgedConsent(), { ceremony_participants: [predecessor.agentId, successorId] }),
      human.principalKeys,
    );
    await expectRefusedAndNothingStored(absentHuman, 400, 'PROTO-E002');
  });

  it("P497 (held): the human's own consent, and a record with none or null, are stored as verified", async () => {
    for (const record of [
      signedBy(ceremony(forgedConsent()), human.principalKeys),
      signedBy(ceremony(null)),
      signedBy(ceremony(undefined)),
    ]) {
      const answer = await service.post(PATH, record);
      expect(answer.status, shown(answer)).toBe(201);
      expect(answer.json['signature'], shown(answer)).toMatchObject({ status: 'verified' });
    }
  });

  it('P499: the operator token stores a forged consent as an administrative write, claiming no signature', async () => {
    const answer = await service.post(PATH, signedBy(ceremony(forgedConsent())), OPERATOR);
    expect(answer.status, shown(answer)).toBe(201);
    expect(answer.json['signature'], shown(answer)).toMatchObject({ status: 'administrative' });
  });

  it("P497: under VERIFIER_MODE=hybrid_required the human's consent stripped of its ML-DSA half is refused", async () => {
    // before: 201 (the outer signature hybrid, the consent's classical only).
    await service.restart({ VERIFIER_MODE: 'hybrid_required' });
    const full = signedBy(ceremony(forgedConsent()), human.principalKeys);
    const consent = full['human_consent'] as Json;
    const strippedConsent = {
      ...consent,
      composite_sig: { ...(consent['composite_sig'] as Json), pq: null, binding: 'classical_only' },
    };
    const record = signRecord(
      backend,
      PROFILES.proto,
      'succession_record',
      { ...full, human_consent: strippedConsent },
      predecessor.agentKeys,
    );
    await expectRefusedAndNothingStored(record, 400, 'PROTO-E102');
    const whole = await service.post(PATH, full);
    expect(whole.status, shown(whole)).toBe(201);
  }, 120_000);
});
