// P205 over HTTP against the real verification service: an agent whose keys are bound here (its bundle verified)
// but that is not yet commissioned here. A stranger with its own verified bundle signs a commissioning certificate
// for that agent naming its own human, with its own RPR key (bound to its human only), and so becomes the agent's
// principal for the two-subject record kinds (P199's gap).
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, withFields } from '../../src/records/test-support.ts';
import { partyOf, startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();

describe.each(dialectsUnderTest())('commissioning an agent whose keys are bound here on %s', (dialect) => {
  let verifier: VerifierWithRecords;
  beforeAll(async () => {
    verifier = await startVerifierWithRecords(dialect, 'v2-commissioning-claim');
  });
  afterAll(async () => {
    await verifier?.close();
  });

  const certificate = (agentId: string, humanId: string, keys: ReturnType<typeof partyOf>['principalKeys']) =>
    signRecord(
      backend,
      PROFILES.proto,
      'commissioning_certificate',
      withFields(example('commissioning_certificate'), { agent_id: agentId, human_id: humanId }),
      keys,
    );

  it('a stranger’s own human key does not commission an agent whose keys are bound here; its own principal does', async () => {
    const victim = partyOf(buildSignedBundle());
    const stranger = partyOf(buildSignedBundle());
    for (const party of [victim, stranger]) {
      const answer = await verifier.post('/verify', { signed_bundle: party.built.signed_bundle });
      expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(true);
      expect(await verifier.keyStatusOnce(party.built.keys.agent.classical.kid, 200)).toBe(200);
    }
    const claimed = await verifier.post(
      '/v2/lifecycle/commission',
      certificate(victim.agentId, stranger.humanId, stranger.principalKeys),
    );
    expect(claimed.status, JSON.stringify(claimed.json)).toBe(403);
    const own = await verifier.post(
      '/v2/lifecycle/commission',
      certificate(victim.agentId, victim.humanId, victim.principalKeys),
    );
    expect(own.status, JSON.stringify(own.json)).toBe(201);
  });
});
