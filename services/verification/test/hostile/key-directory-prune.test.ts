// P174 over HTTP against the real verification service: anyone can fill the key directory by verifying self-made
// bundles with fresh agent ids. With KEY_DIRECTORY_PRUNE_AFTER_SECONDS set, a binding that never authorised a /v2
// write and that no verified bundle proved again within that age is deleted; one that authorised a write stays,
// and a pruned agent's next verified bundle binds it again.
import {
  type BundleKeySet,
  buildSignedBundle,
  createNativeBackend,
  generateBundleKeys,
  PROFILES,
  signRecord,
} from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { metricValue } from '../../src/test-support.ts';
import {
  commissioningCertificate,
  signingKeys,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const backend = createNativeBackend();
const PRUNE_AFTER_SECONDS = 3;
const OPERATOR_TOKEN = 'key-prune-operator-token-0000000001';
describe.each(dialectsUnderTest())('key directory pruning through the service on %s', (dialect) => {
  let verifier: VerifierWithRecords;
  beforeAll(async () => {
    verifier = await startVerifierWithRecords(dialect, 'v2-key-prune', {
      KEY_DIRECTORY_PRUNE_AFTER_SECONDS: String(PRUNE_AFTER_SECONDS),
      KEY_DIRECTORY_PRUNE_INTERVAL_SECONDS: '1',
      OPERATOR_TOKEN,
    });
  });
  afterAll(async () => {
    await verifier?.close();
  });
  const verify = async (built: ReturnType<typeof buildSignedBundle>) => {
    const answer = await verifier.post('/verify', { signed_bundle: built.signed_bundle });
    expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(true);
    const bundle = built.signed_bundle['bundle'] as Json;
    return {
      agentId: ((bundle['agent_passport'] as Json)['payload'] as Json)['agent_id'] as string,
      humanId: ((bundle['responsible_principal_record'] as Json)['payload'] as Json)['human_id'] as string,
    };
  };

  it('prunes an idle agent’s keys, keeps the keys that authorised a write, and a new bundle binds again', async () => {
    const idleKeys = { agent: generateBundleKeys(backend), principal: generateBundleKeys(backend) };
    const usedKeys = { agent: generateBundleKeys(backend), principal: generateBundleKeys(backend) };
    const idle = await verify(buildSignedBundle({ keys: idleKeys }));
    const used = await verify(buildSignedBundle({ keys: usedKeys }));
    expect(await verifier.keyStatusOnce(idleKeys.agent.classical.kid, 200)).toBe(200);
    expect(await verifier.keyStatusOnce(usedKeys.agent.classical.kid, 200)).toBe(200);
    const stored = await verifier.post(
      '/v2/lifecycle/commission',
      commissioningCertificate(used, usedKeys.agent),
    );
    expect(stored.status, JSON.stringify(stored.json)).toBe(201);

    // After the age the idle agent's passport and RPR keys are gone; the writer's passport key is not.
    expect(await verifier.keyStatusOnce(idleKeys.agent.classical.kid, 404, 10_000)).toBe(404);
    expect(await verifier.keyStatusOnce(idleKeys.principal.classical.kid, 404, 5_000)).toBe(404);
    expect(await verifier.keyStatusOnce(usedKeys.agent.classical.kid, 200)).toBe(200);
    expect(await metricValue(verifier.url, 'proto_key_directory_pruned_total')).toBeGreaterThanOrEqual(4);
    expect(await metricValue(verifier.url, 'proto_key_directory_bindings')).toBeGreaterThanOrEqual(1);
    const refused = await verifier.post(
      '/v2/lifecycle/commission',
      commissioningCertificate(idle, idleKeys.agent),
    );
    expect(refused.status, JSON.stringify(refused.json)).toBe(403);

    // The idle agent comes back with a new bundle: its keys bind again (first use), and its write is stored.
    await verify(buildSignedBundle({ keys: idleKeys, now: new Date(Date.now() + 1000) }));
    expect(await verifier.keyStatusOnce(idleKeys.agent.classical.kid, 200)).toBe(200);
    const back = await verifier.post(
      '/v2/lifecycle/commission',
      commissioningCertificate(idle, idleKeys.agent),
    );
    expect(back.status, JSON.stringify(back.json)).toBe(201);
  });

  it('keeps the keys of an agent the operator wrote a record for: after the age its id is not first-come (P185)', async () => {
    const ownerKeys = { agent: generateBundleKeys(backend), principal: generateBundleKeys(backend) };
    const idleKeys = { agent: generateBundleKeys(backend), principal: generateBundleKeys(backend) };
    const owner = await verify(buildSignedBundle({ keys: ownerKeys }));
    await verify(buildSignedBundle({ keys: idleKeys }));
    expect(await verifier.keyStatusOnce(ownerKeys.agent.classical.kid, 200)).toBe(200);
    expect(await verifier.keyStatusOnce(idleKeys.agent.classical.kid, 200)).toBe(200);
    // The operator commissions the agent: no key of the agent authorises this write.
    const administrative = await verifier.post(
      '/v2/lifecycle/commission',
      withFields(example('commissioning_certificate'), { agent_id: owner.agentId, human_id: owner.humanId }),
      { authorization: `Bearer ${OPERATOR_TOKEN}` },
    );
    expect(administrative.status, JSON.stringify(administrative.json)).toBe(201);
    expect(administrative.json['signature']).toEqual({ status: 'administrative' });

    // Past the age (the idle agent's key is pruned), the agent with a record keeps its passport and RPR keys.
    expect(await verifier.keyStatusOnce(idleKeys.agent.classical.kid, 404, 10_000)).toBe(404);
    expect(await verifier.keyStatus(ownerKeys.agent.classical.kid)).toBe(200);
    expect(await verifier.keyStatus(ownerKeys.principal.classical.kid)).toBe(200);

    // A stranger's self-made bundle claiming the agent's and human's ids verifies but binds nothing to them.
    const stranger = { agent: generateBundleKeys(backend), principal: generateBundleKeys(backend) };
    await verify(
      buildSignedBundle({
        keys: stranger,
        hooks: {
          payloads: (payloads) => {
            const passport = payloads.agent_passport as Json;
            passport['agent_id'] = owner.agentId;
            passport['principal_binding_reference'] = owner.humanId;
            (payloads.intent as Json)['agent_id'] = owner.agentId;
            (payloads.intent as Json)['human_id'] = owner.humanId;
            (payloads.responsible_principal_record as Json)['human_id'] = owner.humanId;
          },
        },
      }),
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(await verifier.keyStatus(stranger.agent.classical.kid)).toBe(404);
    const transition = (keys: BundleKeySet) =>
      signRecord(
        backend,
        PROFILES.proto,
        'lifecycle_transition',
        { agent_id: owner.agentId, to_state: 'active', reason: `by ${keys.classical.kid}` },
        signingKeys(keys),
      );
    const hijack = await verifier.post('/v2/lifecycle/transition', transition(stranger.agent));
    expect(hijack.status, JSON.stringify(hijack.json)).toBe(403);
    const genuine = await verifier.post('/v2/lifecycle/transition', transition(ownerKeys.agent));
    expect(genuine.status, JSON.stringify(genuine.json)).toBe(200);
  });
});
