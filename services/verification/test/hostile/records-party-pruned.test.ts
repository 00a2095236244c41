// P537 over HTTP against the real verification service with the /v2 records mounted, on every store dialect. A
// dispute's parties include the principals their verified bundles bound (P375: an RPR key bound to the human and to
// the agent). The dispute record holds its two agents' bindings against key-directory pruning (P185), but not the
// human's own binding of that shared RPR key: once KEY_DIRECTORY_PRUNE_AFTER_SECONDS passed without a re-verification,
// pruning deleted it, the key no longer named the human, and the human was no longer a party on a panel.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import { partyOf, startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();

describe.each(dialectsUnderTest())("a party's principal once key-directory pruning ran, on %s", (dialect) => {
  let service: VerifierWithRecords;
  const initiator = partyOf(buildSignedBundle());
  // Verified here, not commissioned: only its bundle's RPR key, bound to the agent and its human, names the human.
  const respondent = partyOf(buildSignedBundle());
  const human = respondent.humanId;
  // Verified after the respondent and never used: its keys pruned means the respondent's idle rows were reached too.
  const canary = partyOf(buildSignedBundle());
  const arbiter = partyOf(buildSignedBundle());
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 500);
  const sign = (kind: string, record: Json, keys: typeof initiator.agentKeys) =>
    signRecord(backend, PROFILES.proto, kind, record, keys);
  const verify = async (party: typeof initiator) => {
    const verified = await service.post('/verify', { signed_bundle: party.built.signed_bundle });
    expect(verified.json['verified'], shown(verified)).toBe(true);
    expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
  };
  const boundTo = async (kid: string) => {
    const res = await fetch(`${service.url}/v2/keys/${kid}`);
    const json = (await res.json()) as Json;
    return ((json['bindings'] ?? []) as Json[]).map((b) => b['subject']);
  };

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-party-pruned', {
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      RECORDS_ARBITRATORS: `${human},${arbiter.agentId}`,
      KEY_DIRECTORY_PRUNE_AFTER_SECONDS: '2',
      KEY_DIRECTORY_PRUNE_INTERVAL_SECONDS: '1',
    });
  }, 180_000);
  afterAll(async () => {
    await service?.close();
  });

  it('P537: the human whose RPR key its agent shares is still a party after pruning, so not on the panel', async () => {
    await verify(initiator);
    await verify(respondent);
    expect(await boundTo(respondent.principalKeys.classical.kid)).toEqual(
      expect.arrayContaining([human, respondent.agentId]),
    );
    const id = 'dispute:p537-pruned-principal';
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
    await verify(canary);
    // The canary's idle keys go once the age passed: a run then reached every idle row proven before them.
    expect(await service.keyStatusOnce(canary.agentKeys.classical.kid, 404, 15_000)).toBe(404);
    expect(await boundTo(respondent.principalKeys.classical.kid)).toContain(respondent.agentId);

    await verify(arbiter);
    const ruling = await service.post(
      '/v2/dispute/arbitration',
      sign(
        'arbitration_resolution',
        withFields(example('arbitration_resolution'), {
          dispute_id: id,
          arbitrator_ids: [human, arbiter.agentId],
          resolution: 'The respondent keeps the ledger.',
        }),
        arbiter.agentKeys,
      ),
    );
    // Before P537: 201, the respondent's own principal sat on the panel that decided its dispute.
    expect(ruling.status, shown(ruling)).toBe(403);
    expect(ruling.json, shown(ruling)).toMatchObject({
      error: { code: 'FORBIDDEN', details: { dispute_id: id, party: human } },
    });
    expect(await boundTo(respondent.principalKeys.classical.kid)).toContain(human);
  });
});
