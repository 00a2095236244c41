// P480: an emergency token is taken only when the principal signed it. An attestation of this service binds an agent
// id to an RPR hash (D21), but the RPR is public: every bundle the agent shows carries it, signed. A stranger copied
// an attested agent's RPR into a bundle of its own (its own keys in a passport naming the agent's id, its own
// emergency token, every signature its own but the RPR's), which verifies (D8 finds a signer's key by kid in the
// passport or the RPR), registered its token under the default EMERGENCY_REGISTRATION=attested, then revoked the
// agent with its own secret. Real revocation service over HTTP, real SQLite.
import { type BuiltBundle, buildSignedBundle, generateBundleKeys, selectCryptoBackend } from '@proto/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  currentList,
  type EmergencySecret,
  newEmergencySecret,
  postWithoutToken,
  type RunningService,
  startService,
  useEmergencySecret,
} from '../../src/test-support.ts';

const JURISDICTION = 'US'; // the builder writes RPRs for US

type Bundle = {
  responsible_principal_record: { payload: Record<string, unknown>; payload_hash: string };
  agent_passport: { payload: Record<string, unknown> };
};
const bundleOf = (built: BuiltBundle) => built.signed_bundle['bundle'] as Bundle;

/** A reproducible random source: the stranger's bundle then carries the victim's session nonce, as its RPR does. */
function seededRandom(): (length: number) => Uint8Array {
  let next = 0;
  return (length) => Uint8Array.from({ length }, () => (next++ * 37 + 11) & 255);
}

/**
 * The stranger's bundle: the victim's signed RPR word for word, a passport naming the victim's agent and principal
 * with the stranger's keys and token, the intent naming them too, and every other signature (bundle included) the
 * stranger's. Its RPR hash is the victim's, so the victim's attestation matches it.
 */
function borrowedRprBundle(victim: BuiltBundle, now: Date, secret: EmergencySecret): BuiltBundle {
  const rpr = bundleOf(victim).responsible_principal_record;
  const agentId = bundleOf(victim).agent_passport.payload['agent_id'];
  const humanId = rpr.payload['human_id'];
  const stranger = generateBundleKeys(selectCryptoBackend(), { pq: true });
  return buildSignedBundle({
    now,
    random: seededRandom(),
    emergencyRevocationToken: secret.token,
    keys: { principal: stranger, agent: stranger },
    hooks: {
      payloads: (payloads) => {
        payloads.responsible_principal_record = structuredClone(rpr.payload);
        Object.assign(payloads.agent_passport, { agent_id: agentId, principal_binding_reference: humanId });
        Object.assign(payloads.intent, { agent_id: agentId, human_id: humanId });
      },
      artifacts: (artifacts) => {
        artifacts.responsible_principal_record = structuredClone(rpr) as unknown as Record<string, unknown>;
      },
    },
  });
}

const register = (service: RunningService, built: BuiltBundle) =>
  postWithoutToken(service, '/emergency-tokens', { signed_bundle: built.signed_bundle });

describe.each(['attested', 'bundle'] as const)('P480: EMERGENCY_REGISTRATION=%s', (registration) => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startService({
      env: { JURISDICTION, EMERGENCY_REGISTRATION: registration },
      timer: false,
    });
  });
  afterAll(() => service.close());

  it("a stranger's bundle carrying an attested agent's RPR registers nothing, its secret revokes nothing; the agent's own bundle still registers", async () => {
    const now = new Date();
    const victimSecret = newEmergencySecret();
    const victim = buildSignedBundle({
      now,
      random: seededRandom(),
      emergencyRevocationToken: victimSecret.token,
    });
    const victimRpr = bundleOf(victim).responsible_principal_record;
    const agentId = String(bundleOf(victim).agent_passport.payload['agent_id']);
    const attested = await call(service, 'POST', '/attest', {
      rpr_hash: victimRpr.payload_hash,
      agent_id: agentId,
    });
    expect(attested.status).toBe(200);

    const strangerSecret = newEmergencySecret();
    const stranger = borrowedRprBundle(victim, now, strangerSecret);
    // The copy is what the attestation names: same agent id, same RPR hash.
    expect(bundleOf(stranger).responsible_principal_record.payload_hash).toBe(victimRpr.payload_hash);
    expect(bundleOf(stranger).agent_passport.payload['agent_id']).toBe(agentId);

    const squat = await register(service, stranger);
    expect(squat.status, JSON.stringify(squat.json)).toBe(403);
    expect(JSON.stringify(squat.json)).toMatch(/binding_keys/);
    const used = await useEmergencySecret(service, agentId, strangerSecret.hex);
    expect(used.status, JSON.stringify(used.json)).toBe(403);
    expect(JSON.stringify((await currentList(service))['entries'])).not.toContain(agentId);

    // The agent's own bundle (its bundle signature is its principal's) registers, and its secret revokes it.
    const own = await register(service, victim);
    expect(own.status, JSON.stringify(own.json)).toBe(201);
    const revoked = await useEmergencySecret(service, agentId, victimSecret.hex);
    expect(revoked.status, JSON.stringify(revoked.json)).toBe(200);
    expect(JSON.stringify((await currentList(service))['entries'])).toContain(agentId);
  });
});
