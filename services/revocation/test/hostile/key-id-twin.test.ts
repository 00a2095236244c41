// The revocation list names agents and keys in one namespace: an entry's agent_id revokes the agent of that id and
// every key of that kid (verifiers look up each signer kid in every list). A principal of its own, asking for its
// agent to be attested, picks as agent id another agent's key id (32 hex, public in every bundle it signed), then
// uses its own emergency secret: the list then revokes the victim's key. Real revocation service over HTTP (P201).
import { sampleBundle } from '@proto/verification/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  currentList,
  newEmergencySecret,
  postWithoutToken,
  type RunningService,
  rprHashOf,
  startService,
} from '../../src/test-support.ts';

const JURISDICTION = 'US'; // the builder writes RPRs for US

/** A bundle of the attacker's own keys and principal, whose agent id is `agentId`. */
function bundleNamed(agentId: string, token: string) {
  return sampleBundle({
    emergencyRevocationToken: token,
    hooks: {
      payloads: (p) => {
        p.agent_passport['agent_id'] = agentId;
        p.intent['agent_id'] = agentId;
      },
      entry: (entry) => {
        if ('agent_id' in entry) entry['agent_id'] = agentId;
      },
    },
  });
}

const listed = async (service: RunningService) =>
  ((await currentList(service))['entries'] as Array<{ agent_id: string }>).map((e) => e.agent_id);

const revokeWith = (service: RunningService, agentId: string, secretHex: string) =>
  postWithoutToken(service, '/emergency-revocations', {
    type: 'emergency_revocation',
    agent_id: agentId,
    human_id: 'human-key-id-twin',
    revocation_secret: secretHex,
    timestamp: new Date().toISOString(),
    reason: 'key_compromise_emergency',
  });

let attested: RunningService;
let open: RunningService;

beforeAll(async () => {
  const env = { JURISDICTION, EMERGENCY_MAX_PER_IP: '1000' };
  [attested, open] = await Promise.all([
    startService({ env, timer: false }),
    startService({ env: { ...env, EMERGENCY_REGISTRATION: 'bundle' }, timer: false }),
  ]);
});
afterAll(async () => {
  await Promise.all([attested, open].map((s) => s?.close()));
});

describe("P201: an agent id spelled as another agent's key id", () => {
  it('attested (default): the operator is refused the attestation, so no token and no list entry follow', async () => {
    const victim = sampleBundle({});
    const victimKid = victim.agentKid as string;
    const secret = newEmergencySecret();
    const attacker = bundleNamed(victimKid, secret.token);
    const attest = await call(attested, 'POST', '/attest', {
      rpr_hash: rprHashOf(attacker),
      agent_id: victimKid,
    });
    // Before P201: 200 (the attestation signed for the victim's kid as an agent id); the bundle registration
    // that follows it is what the next case shows in bundle mode.
    expect(attest.status, JSON.stringify(attest.json)).toBe(400);
    expect((attest.json['error'] as { code?: string }).code).toBe('INVALID_ID');
    expect(
      (await postWithoutToken(attested, '/emergency-tokens', { signed_bundle: attacker.signed_bundle }))
        .status,
    ).toBe(400);
    expect((await revokeWith(attested, victimKid, secret.hex)).status).toBe(403);
    expect(await listed(attested)).not.toContain(victimKid);
  });

  it('bundle: a self-made bundle under a key id is refused registration; the victim key stays unlisted', async () => {
    const victim = sampleBundle({});
    const victimKid = victim.agentKid as string;
    const secret = newEmergencySecret();
    const attacker = bundleNamed(victimKid, secret.token);
    const registered = await postWithoutToken(open, '/emergency-tokens', {
      signed_bundle: attacker.signed_bundle,
    });
    // Before P201: 201 with agent_id the victim's kid; the attacker's secret would then list that kid.
    expect(registered.status, JSON.stringify(registered.json)).toBe(400);
    expect((registered.json['error'] as { code?: string }).code).toBe('INVALID_ID');
    expect((await revokeWith(open, victimKid, secret.hex)).status).toBe(403);
    expect(await listed(open)).not.toContain(victimKid);
  });

  it('an agent id of other shapes is still attested (control)', async () => {
    const sample = sampleBundle({});
    const attest = await call(attested, 'POST', '/attest', {
      rpr_hash: rprHashOf(sample),
      agent_id: sample.agentId,
    });
    expect(attest.status, JSON.stringify(attest.json)).toBe(200);
  });
});
