// P199 over HTTP against the real verification service with the /v2 records mounted, on every store dialect: a
// stranger verifies a self-made bundle (its RPR binding keys become bound to its own human id), then signs a
// decommissioning record for someone else's active agent naming itself as `human_id`. A record naming an agent and a
// human was authorised when the key was bound to either id, so the stranger's human id sufficed: the victim's agent
// was decommissioned for good, by a write stored as `verified`.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { partyOf, startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();

describe.each(dialectsUnderTest())("a stranger's human id on another's agent record, on %s", (dialect) => {
  let running: VerifierWithRecords;
  const victim = partyOf(buildSignedBundle());
  const stranger = partyOf(buildSignedBundle());

  const postJson = (path: string, body: unknown) => running.post(path, body);
  const sign = (kind: string, record: Json, keys: typeof victim.agentKeys) =>
    signRecord(backend, PROFILES.proto, kind, record, keys);
  const stateOf = async (agentId: string) => {
    const res = await fetch(`${running.url}/v2/lifecycle/commission/${agentId}`);
    return ((await res.json()) as Json)['state'];
  };
  const decommissioning = (agentId: string, humanId: string) =>
    withFields(example('decommissioning_record'), {
      agent_id: agentId,
      human_id: humanId,
      timestamp: new Date().toISOString(), // the move at its signed time (P238), after the agent's moves now
    });

  // Two bundles verified and their keys awaited before the records: slow on a loaded host.
  beforeAll(async () => {
    running = await startVerifierWithRecords(dialect, 'v2-foreign-principal');
    for (const party of [victim, stranger]) {
      const verified = await postJson('/verify', { signed_bundle: party.built.signed_bundle });
      expect(verified.json['verified']).toBe(true);
      expect(await running.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
      expect(await running.keyStatusOnce(party.principalKeys.classical.kid, 200)).toBe(200);
    }
    // The victim's agent, commissioned by its own principal and active.
    const certificate = withFields(example('commissioning_certificate'), {
      agent_id: victim.agentId,
      human_id: victim.humanId,
    });
    const commissioned = await postJson(
      '/v2/lifecycle/commission',
      sign('commissioning_certificate', certificate, victim.principalKeys),
    );
    expect(commissioned.status, JSON.stringify(commissioned.json).slice(0, 300)).toBe(201);
    const moved = await postJson(
      '/v2/lifecycle/transition',
      sign('lifecycle_transition', { agent_id: victim.agentId, to_state: 'active' }, victim.agentKeys),
    );
    expect(moved.status, JSON.stringify(moved.json).slice(0, 300)).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await running?.close();
  });

  it("P199: the stranger's principal key cannot decommission the victim's agent by naming its own human", async () => {
    const forged = sign(
      'decommissioning_record',
      decommissioning(victim.agentId, stranger.humanId),
      stranger.principalKeys,
    );
    const answer = await postJson('/v2/lifecycle/decommission', forged);
    expect(answer.status, JSON.stringify(answer.json).slice(0, 300)).toBe(403);
    expect(answer.json).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect(await stateOf(victim.agentId)).toBe('active');
    expect((await fetch(`${running.url}/v2/lifecycle/decommission/${victim.agentId}`)).status).toBe(404);
  });

  it("P199: nor store another record about the victim's agent as verified by naming its own human", async () => {
    const obligation = withFields(example('obligation_record'), {
      agent_id: victim.agentId,
      human_id: stranger.humanId,
    });
    const answer = await postJson(
      '/v2/rights/obligation',
      sign('obligation_record', obligation, stranger.principalKeys),
    );
    expect(answer.status, JSON.stringify(answer.json).slice(0, 300)).toBe(403);
  });

  it("P199: the agent's own principal, and the agent itself, still decommission it", async () => {
    const byPrincipal = sign(
      'decommissioning_record',
      decommissioning(victim.agentId, victim.humanId),
      victim.principalKeys,
    );
    const answer = await postJson('/v2/lifecycle/decommission', byPrincipal);
    expect(answer.status, JSON.stringify(answer.json).slice(0, 300)).toBe(201);
    expect(answer.json).toMatchObject({ state: 'decommissioned', signature: { status: 'verified' } });
    expect(await stateOf(victim.agentId)).toBe('decommissioned');
  });

  it('P199: a principal whose key is bound only to its human still signs for the agent its certificate names', async () => {
    // An agent of the victim's principal with no bundle verified here: the principal's key is bound to the human
    // (and the victim's agent) only; the new agent's certificate, signed by that key, names the human.
    const newAgent = `${victim.agentId}-second`;
    const certificate = withFields(example('commissioning_certificate'), {
      agent_id: newAgent,
      human_id: victim.humanId,
    });
    const commissioned = await postJson(
      '/v2/lifecycle/commission',
      sign('commissioning_certificate', certificate, victim.principalKeys),
    );
    expect(commissioned.status, JSON.stringify(commissioned.json).slice(0, 300)).toBe(201);
    const obligation = (humanId: string, id: string) =>
      withFields(example('obligation_record'), { obligation_id: id, agent_id: newAgent, human_id: humanId });
    const own = await postJson(
      '/v2/rights/obligation',
      sign('obligation_record', obligation(victim.humanId, 'obligation:p199-own'), victim.principalKeys),
    );
    expect(own.status, JSON.stringify(own.json).slice(0, 300)).toBe(201);
    expect(own.json).toMatchObject({ signature: { status: 'verified' } });
    const foreign = await postJson(
      '/v2/rights/obligation',
      sign(
        'obligation_record',
        obligation(stranger.humanId, 'obligation:p199-foreign'),
        stranger.principalKeys,
      ),
    );
    expect(foreign.status, JSON.stringify(foreign.json).slice(0, 300)).toBe(403);
  });
});
