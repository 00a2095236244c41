// What an attestation vouches for, and for how long (P211). In the default EMERGENCY_REGISTRATION=attested, a
// bundle's emergency token is taken only for an agent this service attested with that RPR; the attestation says
// until when (expires_at), and past it the agent is no longer vouched for: a registration then is refused with
// PROTO-E104 until the operator attests again. And a token registered from a bundle under an agent id of the key
// id form before P201 (seeded here straight into the store, as such a row was written then) is named at start and
// cannot be used: its secret would put that kid, maybe another agent's key, in the list. Real service over HTTP,
// real SQLite.
import { randomBytes } from 'node:crypto';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { sampleBundle } from '@proto/verification/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  call,
  currentList,
  newEmergencySecret,
  postWithoutToken,
  type RunningService,
  rprHashOf,
  startService,
  useEmergencySecret,
} from '../../src/test-support.ts';

const JURISDICTION = 'US'; // the builder writes RPRs for US
const VALIDITY_S = 60; // ATTESTATION_VALIDITY_S's minimum

const codeOf = (json: Record<string, unknown>) => (json['error'] as { code?: string } | undefined)?.code;

const attest = (service: RunningService, sample: ReturnType<typeof sampleBundle>) =>
  call(service, 'POST', '/attest', { rpr_hash: rprHashOf(sample), agent_id: sample.agentId });

const register = (service: RunningService, sample: ReturnType<typeof sampleBundle>) =>
  postWithoutToken(service, '/emergency-tokens', { signed_bundle: sample.signed_bundle });

const running: RunningService[] = [];
const targets: StoreTarget[] = [];
afterEach(async () => {
  for (const service of running.splice(0)) await service.close();
});
afterAll(async () => {
  for (const target of targets) await target.cleanup();
});

describe('P211: an expired attestation vouches for nothing', () => {
  it('refuses a registration past the attestation it rests on with 422 PROTO-E104; a new attestation lets it in', async () => {
    let offsetMs = 0;
    const service = await startService({
      env: { JURISDICTION, ATTESTATION_VALIDITY_S: String(VALIDITY_S) },
      timer: false,
      clock: () => new Date(Date.now() + offsetMs),
    });
    running.push(service);
    const fresh = sampleBundle({ emergencyRevocationToken: newEmergencySecret().token });
    const stale = sampleBundle({ emergencyRevocationToken: newEmergencySecret().token });
    expect((await attest(service, fresh)).status).toBe(200);
    expect((await attest(service, stale)).status).toBe(200);
    // Within its validity the attestation is what lets the bundle in.
    const inTime = await register(service, fresh);
    expect(inTime.status, JSON.stringify(inTime.json)).toBe(201);

    offsetMs = (VALIDITY_S + 1) * 1000;
    const late = await register(service, stale);
    // Before P211: 201, the token of an agent whose attestation had expired was taken (expired ones counted).
    expect(late.status, JSON.stringify(late.json)).toBe(422);
    expect(codeOf(late.json)).toMatch(/^[A-Z]+-E104$/);
    expect(String((late.json['error'] as { message: string }).message)).toContain('attest it again');
    expect(JSON.stringify(late.json)).not.toMatch(/stack|at .*\.ts:/);

    // The operator attests again: the newest issuance holds, and the registration goes through.
    expect((await attest(service, stale)).status).toBe(200);
    const again = await register(service, stale);
    expect(again.status, JSON.stringify(again.json)).toBe(201);
  });
});

describe('P211: tokens registered from a bundle under a key id before P201', () => {
  it('are named and counted at start, and their secret revokes nothing until the operator registers them again', async () => {
    const target = await createStoreTarget('sqlite', 'revocation-kid-form');
    targets.push(target);
    const victimKid = randomBytes(16).toString('hex');
    const secret = newEmergencySecret();
    // The row as a pre-P201 bundle registration wrote it: the attacker's agent named after the victim's kid.
    const seeded = await target.open();
    const written = await seeded.revocation.registerEmergencyToken(JURISDICTION, {
      agent_id: victimKid,
      token: secret.token,
      kids: [],
      human_id: 'human-pre-p201',
      source: 'bundle',
    });
    expect(written.status).toBe('created');
    await seeded.close();

    const service = await startService({ store: target.options, env: { JURISDICTION }, timer: false });
    running.push(service);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    const gauge = metrics
      .split('\n')
      .find((l) => l.startsWith('proto_revocation_key_id_form_emergency_tokens '));
    // Before P211: no such gauge, and no word of the row in the log.
    expect(gauge?.split(' ').at(-1)).toBe('1');
    expect(service.logs.some((l) => l.includes('"level":40') && l.includes(victimKid))).toBe(true);

    const used = await useEmergencySecret(service, victimKid, secret.hex);
    // Before P211: 200, and the victim's kid was entered in the signed list by the attacker's secret.
    expect(used.status, JSON.stringify(used.json)).toBe(403);
    const entries = (await currentList(service))['entries'] as Array<{ agent_id: string }>;
    expect(entries.map((e) => e.agent_id)).not.toContain(victimKid);

    // The operator's own registration (its call: it vouches for the id) makes the token usable again.
    const replaced = await call(service, 'PUT', `/emergency-tokens/${victimKid}`, {
      emergency_revocation_token: secret.token,
    });
    expect(replaced.status, JSON.stringify(replaced.json)).toBe(200);
    const byOperator = await useEmergencySecret(service, victimKid, secret.hex);
    expect(byOperator.status, JSON.stringify(byOperator.json)).toBe(200);
  });
});
