// Issue 15 item 5 (P45) over HTTP against the real verification service: a key the newest verified passport
// drops, or marks revoked, stops authorising /v2 writes; an older bundle verified later does not bring it back.
import {
  type BundleKeySet,
  buildSignedBundle,
  createNativeBackend,
  generateBundleKeys,
  keyEntry,
  PROFILES,
  signRecord,
} from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import {
  commissioningCertificate,
  signingKeys,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const backend = createNativeBackend();
const MINUTE = 60_000;

describe.each(dialectsUnderTest())('key rotation through POST /verify on %s', (dialect) => {
  let verifier: VerifierWithRecords;
  beforeAll(async () => {
    verifier = await startVerifierWithRecords(dialect, 'v2-key-rotation');
  });
  afterAll(async () => {
    await verifier?.close();
  });

  const agent = generateBundleKeys(backend);
  const principal = generateBundleKeys(backend);
  const spare = generateBundleKeys(backend, { pq: false });
  const successor = generateBundleKeys(backend, { pq: false });
  const start = Date.now() - 30 * MINUTE;

  /** The agent's bundle at `minutes` after start, its passport also listing `extra` keys (status as given). */
  const bundleAt = (minutes: number, extra: { keys: BundleKeySet; status: string }[]) => {
    const now = new Date(start + minutes * MINUTE);
    return buildSignedBundle({
      keys: { agent, principal },
      now,
      hooks: {
        payloads: (payloads) => {
          const passport = payloads.agent_passport as Json;
          for (const { keys, status } of extra) {
            (passport['keys'] as Json[]).push({
              ...keyEntry(keys.classical, now.toISOString(), null),
              status,
            });
          }
        },
      },
    });
  };
  const verify = async (built: ReturnType<typeof buildSignedBundle>) => {
    const answer = await verifier.post('/verify', { signed_bundle: built.signed_bundle });
    expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(true);
    return ((built.signed_bundle['bundle'] as Json)['agent_passport'] as Json)['payload'] as Json;
  };
  const transition = (agentId: string, to: string, keys: BundleKeySet) =>
    signRecord(
      backend,
      PROFILES.proto,
      'lifecycle_transition',
      { agent_id: agentId, to_state: to, reason: `by ${keys.classical.kid}` },
      signingKeys(keys),
    );

  it('a dropped key stops authorising, an older bundle does not revive it, a key marked revoked stops too', async () => {
    const first = await verify(bundleAt(0, [{ keys: spare, status: 'active' }]));
    const agentId = first['agent_id'] as string;
    expect(await verifier.keyStatusOnce(spare.classical.kid, 200)).toBe(200);
    const humanId = (
      ((bundleAt(0, []).signed_bundle['bundle'] as Json)['responsible_principal_record'] as Json)[
        'payload'
      ] as Json
    )['human_id'] as string;
    // The spare key signs for the agent while the newest passport lists it.
    const certificate = commissioningCertificate({ agentId, humanId }, spare);
    const admitted = await verifier.post('/v2/lifecycle/commission', certificate);
    expect(admitted.status, JSON.stringify(admitted.json)).toBe(201);

    // A newer passport drops the spare key and lists a successor.
    await verify(bundleAt(10, [{ keys: successor, status: 'active' }]));
    expect(await verifier.keyStatusOnce(spare.classical.kid, 404)).toBe(404);
    const dropped = await verifier.post('/v2/lifecycle/transition', transition(agentId, 'active', spare));
    expect(dropped.status, JSON.stringify(dropped.json)).toBe(403);

    // An older bundle (between the two) still listing the spare key verifies, but binds nothing back.
    await verify(bundleAt(5, [{ keys: spare, status: 'active' }]));
    await new Promise((r) => setTimeout(r, 500));
    expect(await verifier.keyStatus(spare.classical.kid)).toBe(404);

    // The successor authorises until the newest passport marks it revoked.
    expect(await verifier.keyStatusOnce(successor.classical.kid, 200)).toBe(200);
    const bySuccessor = await verifier.post(
      '/v2/lifecycle/transition',
      transition(agentId, 'active', successor),
    );
    expect(bySuccessor.status, JSON.stringify(bySuccessor.json)).toBe(200);
    await verify(bundleAt(20, [{ keys: successor, status: 'revoked' }]));
    expect(await verifier.keyStatusOnce(successor.classical.kid, 404)).toBe(404);
    const marked = await verifier.post(
      '/v2/lifecycle/transition',
      transition(agentId, 'declining', successor),
    );
    expect(marked.status, JSON.stringify(marked.json)).toBe(403);
    // The agent's own passport key, listed all along, still does.
    const own = await verifier.post('/v2/lifecycle/transition', transition(agentId, 'declining', agent));
    expect(own.status, JSON.stringify(own.json)).toBe(200);
  });

  it('a self-made bundle claiming the agent’s and human’s ids binds nothing to them and retires nothing', async () => {
    const owner = buildSignedBundle({ now: new Date(start) });
    const ownerPassport = await verify(owner);
    const agentId = ownerPassport['agent_id'] as string;
    const humanId = ((owner.signed_bundle['bundle'] as Json)['responsible_principal_record'] as Json)[
      'payload'
    ] as Json;
    expect(await verifier.keyStatusOnce(owner.keys.agent.classical.kid, 200)).toBe(200);

    // The attacker's own keys, the victim's ids, a later date, and the victim's kid "revoked": it verifies.
    const hijack = buildSignedBundle({
      now: new Date(start + 20 * MINUTE),
      hooks: {
        payloads: (payloads) => {
          const passport = payloads.agent_passport as Json;
          passport['agent_id'] = agentId;
          passport['principal_binding_reference'] = humanId['human_id'];
          (passport['keys'] as Json[]).push({
            ...keyEntry(owner.keys.agent.classical, new Date(start).toISOString(), null),
            status: 'revoked',
          });
          (payloads.intent as Json)['agent_id'] = agentId;
          (payloads.intent as Json)['human_id'] = humanId['human_id'];
          (payloads.responsible_principal_record as Json)['human_id'] = humanId['human_id'];
        },
      },
    });
    await verify(hijack);
    await new Promise((r) => setTimeout(r, 500));
    expect(await verifier.keyStatus(hijack.keys.agent.classical.kid)).toBe(404);
    expect(await verifier.keyStatus(hijack.keys.principal.classical.kid)).toBe(404);

    const forged = commissioningCertificate(
      { agentId, humanId: humanId['human_id'] as string },
      hijack.keys.agent,
    );
    const refused = await verifier.post('/v2/lifecycle/commission', forged);
    expect(refused.status, JSON.stringify(refused.json)).toBe(403);
    const mandate = signRecord(
      backend,
      PROFILES.proto,
      'delegation_mandate',
      withFields(example('delegation_mandate'), {
        mandate_id: 'mandate:hijack-1',
        human_id: humanId['human_id'],
      }),
      signingKeys(hijack.keys.principal),
    );
    expect((await verifier.post('/v2/delegation/mandate', mandate)).status).toBe(403);

    // The owner's key was not retired by the stranger's mark, and still signs.
    const genuine = commissioningCertificate(
      { agentId, humanId: humanId['human_id'] as string },
      owner.keys.agent,
    );
    const stored = await verifier.post('/v2/lifecycle/commission', genuine);
    expect(stored.status, JSON.stringify(stored.json)).toBe(201);
  });
});
