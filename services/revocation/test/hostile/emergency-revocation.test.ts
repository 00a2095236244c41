// Emergency revocation over HTTP against the real revocation service (SQLite and PostgreSQL) and, end to end,
// the real verification service reading its list. PROTOCOL §9.5, schema emergency_revocation; issue 12 item 9.
import { randomBytes } from 'node:crypto';
import type { BuildOptions } from '@proto/core';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { postVerify, type RunningApp, sampleBundle, startApp } from '@proto/verification/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  currentList,
  type EmergencySecret,
  emergencyRevocationRecord,
  newEmergencySecret,
  postWithoutToken,
  type RunningService,
  rprHashOf,
  startService,
} from '../../src/test-support.ts';

const JURISDICTION = 'US'; // the builder writes RPRs for US

/** A verified V2 bundle whose passport carries the secret's token. */
function bundleWithToken(secret: EmergencySecret | undefined, options: BuildOptions = {}) {
  return sampleBundle({
    ...(secret === undefined ? {} : { emergencyRevocationToken: secret.token }),
    ...options,
  });
}

function agentKids(sample: ReturnType<typeof sampleBundle>): string[] {
  const agent = sample.keys.agent;
  return [agent.classical.kid, ...(agent.pq ? [agent.pq.kid] : [])];
}

const register = (service: RunningService, signedBundle: unknown) =>
  postWithoutToken(service, '/emergency-tokens', { signed_bundle: signedBundle });
/** `sha256:` of jcs(RPR payload): what an attestation binds (D21), here the RPR's payload_hash. */
/** EMERGENCY_REGISTRATION=attested (the default): the operator attests the agent, then its bundle registers. */
async function registerAttested(service: RunningService, sample: ReturnType<typeof sampleBundle>) {
  const attest = await call(service, 'POST', '/attest', {
    rpr_hash: rprHashOf(sample),
    agent_id: sample.agentId,
  });
  expect(attest.status, JSON.stringify(attest.json)).toBe(200);
  return register(service, sample.signed_bundle);
}

const emergencyRevoke = (
  service: RunningService,
  agentId: string,
  secretHex: string,
  headers: Record<string, string> = {},
) =>
  postWithoutToken(service, '/emergency-revocations', emergencyRevocationRecord(agentId, secretHex), headers);

function listedIds(list: Record<string, unknown>): string[] {
  return (list['entries'] as Array<{ agent_id: string }>).map((e) => e.agent_id);
}

function errorCodeOf(json: Record<string, unknown>): string | undefined {
  return (json['error'] as { code?: string } | undefined)?.code;
}

describe.each(dialectsUnderTest())('emergency revocation on %s', (dialect) => {
  let target: StoreTarget;
  let service: RunningService;
  let verification: RunningApp;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'emergency');
    // max-age 0: a verifier revalidates at every check, so the list's refresh time is one request.
    service = await startService({
      store: target.options,
      env: {
        JURISDICTION,
        LIST_MAX_AGE_S: '0',
        EMERGENCY_MAX_PER_IP: '1000',
        EMERGENCY_MAX_PER_AGENT: '1000',
      },
      timer: false,
    });
    const health = await call(service, 'GET', '/health', undefined, null);
    const listKey = health.json['revocation_public_key_b64'] as string;
    verification = await startApp({
      VERIFY_WORKERS: '1',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      // The test machine is shared: no load shedding on event-loop delay (E702) in this test.
      MAX_EVENT_LOOP_DELAY_MS: '0',
      REVOCATION_SOURCES: JSON.stringify({ [JURISDICTION]: { url: service.listUrl, keys: [listKey] } }),
    });
  });
  afterAll(async () => {
    await verification?.close();
    await service?.close();
    await target?.cleanup();
  });

  it('registers by verified bundle, revokes with the secret at once, and the verifier then refuses only that agent', async () => {
    const secret = newEmergencySecret();
    // Two agents of the same principal: the principal's keys sign both bundles' RPRs.
    const victim = bundleWithToken(secret);
    const sibling = bundleWithToken(newEmergencySecret(), { keys: { principal: victim.keys.principal } });
    const agentId = victim.agentId as string;

    const registered = await registerAttested(service, victim);
    expect(registered.status, JSON.stringify(registered.json)).toBe(201);
    expect(registered.json).toMatchObject({ agent_id: agentId, source: 'bundle', created: true });
    expect([...(registered.json['kids'] as string[])].sort()).toEqual(agentKids(victim).sort());
    // The principal's kids signed the bundle too, but they are not the agent's keys.
    expect(registered.json['kids']).not.toContain(victim.keys.principal.classical.kid);
    expect((await register(service, victim.signed_bundle)).json).toMatchObject({ created: false });
    expect((await registerAttested(service, sibling)).status).toBe(201);

    const before = await postVerify(verification.url, { signed_bundle: victim.signed_bundle });
    expect(before.json, JSON.stringify(before.json)).toMatchObject({ verified: true });
    expect((before.json['checks'] as Record<string, string>)['revocation']).toBe('pass');

    const listBefore = await currentList(service);
    const revoked = await emergencyRevoke(service, agentId, secret.hex);
    expect(revoked.status, JSON.stringify(revoked.json)).toBe(200);
    expect(revoked.json).toMatchObject({ agent_id: agentId, list_number: listBefore.list_number + 1 });
    expect([...(revoked.json['keys_revoked'] as string[])].sort()).toEqual(agentKids(victim).sort());

    // The next list is already published and names the agent and its keys, nothing else.
    const list = await currentList(service);
    expect(list.list_number).toBe(listBefore.list_number + 1);
    const added = listedIds(list).filter((id) => !listedIds(listBefore).includes(id));
    expect(added.sort()).toEqual([agentId, ...agentKids(victim)].sort());
    expect(listedIds(list)).not.toContain(sibling.agentId);
    expect(listedIds(list)).not.toContain(victim.keys.principal.classical.kid);

    const after = await postVerify(verification.url, { signed_bundle: victim.signed_bundle });
    expect(after.json, JSON.stringify(after.json)).toMatchObject({ verified: false });
    expect((after.json['checks'] as Record<string, string>)['revocation']).toBe('fail');
    expect(after.json['error_details']).toEqual([
      expect.objectContaining({ code: 'PROTO-E300', check: 'revocation' }),
    ]);
    // A new bundle of the same agent keys (new session) is refused as well.
    const fresh = bundleWithToken(undefined, { keys: victim.keys });
    const freshResult = await postVerify(verification.url, { signed_bundle: fresh.signed_bundle });
    expect(freshResult.json['verified']).toBe(false);

    // Upstream's gateway reports every kid revoked after any emergency revocation: ours does not.
    const other = await postVerify(verification.url, { signed_bundle: sibling.signed_bundle });
    expect(other.json, JSON.stringify(other.json)).toMatchObject({ verified: true });
    expect((other.json['checks'] as Record<string, string>)['revocation']).toBe('pass');
    const stranger = bundleWithToken(undefined);
    expect(
      (await postVerify(verification.url, { signed_bundle: stranger.signed_bundle })).json,
    ).toMatchObject({ verified: true });
  });

  it('the verifier reading the lists advertises emergency_revocation in its capabilities', async () => {
    const res = await fetch(`${verification.url}/.well-known/proto-capabilities.json`);
    const doc = (await res.json()) as { features: Record<string, boolean> };
    expect(doc.features['emergency_revocation']).toBe(true);
  });

  it('refuses a wrong secret with 403 and changes nothing', async () => {
    const secret = newEmergencySecret();
    const sample = bundleWithToken(secret);
    expect((await registerAttested(service, sample)).status).toBe(201);
    const listBefore = await currentList(service);
    const wrong = await emergencyRevoke(service, sample.agentId as string, newEmergencySecret().hex);
    expect(wrong.status).toBe(403);
    expect(wrong.json['error']).toMatchObject({ code: 'FORBIDDEN', retryable: false });
    // Another agent's valid secret is just as wrong here.
    const otherSecret = newEmergencySecret();
    expect((await registerAttested(service, bundleWithToken(otherSecret))).status).toBe(201);
    expect((await emergencyRevoke(service, sample.agentId as string, otherSecret.hex)).status).toBe(403);
    const listAfter = await currentList(service);
    expect(listAfter.list_number).toBe(listBefore.list_number);
    expect(listedIds(listAfter)).not.toContain(sample.agentId);
  });

  it('allows each secret once: a reused secret is 409, and racing uses revoke exactly once', async () => {
    const secret = newEmergencySecret();
    const sample = bundleWithToken(secret);
    expect((await registerAttested(service, sample)).status).toBe(201);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => emergencyRevoke(service, sample.agentId as string, secret.hex)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const again = await emergencyRevoke(service, sample.agentId as string, secret.hex);
    expect(again.status).toBe(409);
    expect(again.json['error']).toMatchObject({ code: 'CONFLICT' });
    // A used token cannot be registered again, by bundle or by operator.
    expect((await register(service, sample.signed_bundle)).status).toBe(409);
  });

  it('is durable before it answers: after a restart the secret stays used and the list still names the agent', async () => {
    const secret = newEmergencySecret();
    const sample = bundleWithToken(secret);
    expect((await registerAttested(service, sample)).status).toBe(201);
    expect((await emergencyRevoke(service, sample.agentId as string, secret.hex)).status).toBe(200);
    const restarted = await startService({
      store: target.options,
      dataDir: service.dataDir,
      env: { JURISDICTION, LIST_MAX_AGE_S: '0' },
      timer: false,
    });
    try {
      expect(listedIds(await currentList(restarted))).toEqual(
        expect.arrayContaining([sample.agentId, ...agentKids(sample)]),
      );
      expect((await emergencyRevoke(restarted, sample.agentId as string, secret.hex)).status).toBe(409);
    } finally {
      await restarted.close();
    }
  });

  it('P305: an agent without a token and a wrong secret get the same answer; the holder is told how to register', async () => {
    const registered = bundleWithToken(newEmergencySecret());
    expect((await registerAttested(service, registered)).status).toBe(201);
    const heldSecret = newEmergencySecret();
    const unregistered = bundleWithToken(heldSecret); // never registered
    // A caller without either secret: nothing in the answer tells which agent has a token.
    const wrong = await emergencyRevoke(service, registered.agentId as string, newEmergencySecret().hex);
    const none = await emergencyRevoke(service, unregistered.agentId as string, newEmergencySecret().hex);
    expect(none.status).toBe(wrong.status);
    expect(none.json).toEqual(wrong.json);
    expect([...none.headers.keys()]).toEqual([...wrong.headers.keys()]);
    expect(wrong.status).toBe(403);
    expect(wrong.json['error']).toMatchObject({ code: 'FORBIDDEN', retryable: false });
    // The holder of a secret whose token was never registered reads what to do, does it, and revokes.
    const holder = await emergencyRevoke(service, unregistered.agentId as string, heldSecret.hex);
    expect(holder.json).toEqual(wrong.json);
    expect(String((holder.json['error'] as { message?: unknown }).message)).toContain(
      'POST /emergency-tokens',
    );
    expect((await registerAttested(service, unregistered)).status).toBe(201);
    expect((await emergencyRevoke(service, unregistered.agentId as string, heldSecret.hex)).status).toBe(200);
  });

  it('refuses malformed records with 400 (schema emergency_revocation)', async () => {
    const secret = newEmergencySecret();
    const sample = bundleWithToken(secret);
    expect((await registerAttested(service, sample)).status).toBe(201);
    const good = emergencyRevocationRecord(sample.agentId as string, secret.hex);
    for (const bad of [
      { ...good, revocation_secret: secret.hex.toUpperCase() },
      { ...good, revocation_secret: secret.hex.slice(2) },
      { ...good, reason: 'key_compromise' },
      { ...good, type: 'revocation' },
      { ...good, agent_id: 'a/b/../c' },
    ]) {
      const res = await postWithoutToken(service, '/emergency-revocations', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json['error']).toMatchObject({ retryable: false });
      expect(JSON.stringify(res.json)).not.toContain(secret.hex);
    }
    // The secret is still good afterwards.
    expect((await postWithoutToken(service, '/emergency-revocations', good)).status).toBe(200);
  });

  it('takes only keys that signed: a passport listing another agent’s key cannot get it revoked', async () => {
    const victim = bundleWithToken(undefined);
    const victimBundle = victim.signed_bundle as {
      bundle: { agent_passport: { payload: { keys: unknown[] } } };
    };
    const victimKey = victimBundle.bundle.agent_passport.payload.keys[0];
    const secret = newEmergencySecret();
    const attacker = bundleWithToken(secret, {
      hooks: {
        payloads: (p) => {
          (p.agent_passport['keys'] as unknown[]).push(victimKey);
        },
      },
    });
    const registered = await registerAttested(service, attacker);
    expect(registered.status, JSON.stringify(registered.json)).toBe(201);
    expect(registered.json['kids']).not.toContain(victim.agentKid);
    expect((await emergencyRevoke(service, attacker.agentId as string, secret.hex)).status).toBe(200);
    expect(listedIds(await currentList(service))).not.toContain(victim.agentKid);
    const check = await postVerify(verification.url, { signed_bundle: victim.signed_bundle });
    expect(check.json, JSON.stringify(check.json)).toMatchObject({ verified: true });
  });

  it('registers only verified bundles of this jurisdiction that carry a token; the first token stands', async () => {
    const secret = newEmergencySecret();
    const sample = bundleWithToken(secret);
    // Tampered after signing: the passport's token no longer matches its signature.
    const tampered = structuredClone(sample.signed_bundle) as {
      bundle: { agent_passport: { payload: Record<string, unknown> } };
    };
    tampered.bundle.agent_passport.payload['emergency_revocation_token'] = newEmergencySecret().token;
    const bad = await register(service, tampered);
    expect(bad.status).toBe(422);
    expect(errorCodeOf(bad.json)).toMatch(/^PROTO-E\d{3}$/);

    const noToken = await register(service, bundleWithToken(undefined).signed_bundle);
    expect(noToken.status).toBe(400);

    const foreign = bundleWithToken(newEmergencySecret(), {
      hooks: {
        payloads: (p) => {
          p.responsible_principal_record['jurisdiction'] = 'FR';
        },
      },
    });
    expect((await register(service, foreign.signed_bundle)).status).toBe(403);

    expect((await registerAttested(service, sample)).status).toBe(201);
    // A later bundle of the same agent keys with another token cannot swap the secret.
    const swapped = bundleWithToken(newEmergencySecret(), { keys: sample.keys });
    expect(swapped.agentId).toBe(sample.agentId);
    expect((await registerAttested(service, swapped)).status).toBe(409);
    expect((await postWithoutToken(service, '/emergency-tokens', { signed_bundle: 'x' })).status).toBe(400);
  });

  it('lets the operator register or replace a token with the bearer token, not without', async () => {
    const secret = newEmergencySecret();
    const agentId = `agent:operator-${randomBytes(4).toString('hex')}`;
    const kid = randomBytes(16).toString('hex');
    const body = { emergency_revocation_token: newEmergencySecret().token, kids: [kid] };
    expect((await call(service, 'PUT', `/emergency-tokens/${agentId}`, body, null)).status).toBe(401);
    expect((await call(service, 'PUT', `/emergency-tokens/${agentId}`, body)).status).toBe(201);
    const replaced = await call(service, 'PUT', `/emergency-tokens/${agentId}`, {
      ...body,
      emergency_revocation_token: secret.token,
    });
    expect(replaced.status).toBe(200);
    const revoked = await emergencyRevoke(service, agentId, secret.hex);
    expect(revoked.status, JSON.stringify(revoked.json)).toBe(200);
    expect(revoked.json['keys_revoked']).toEqual([kid]);
    expect(listedIds(await currentList(service))).toEqual(expect.arrayContaining([agentId, kid]));
    expect((await call(service, 'PUT', `/emergency-tokens/${agentId}`, body)).status).toBe(409);
  });
});

/** The builder's bundle re-made under another agent id: what anyone can sign with keys of their own. */
function squatterBundle(victimAgentId: string, secret: EmergencySecret) {
  return bundleWithToken(secret, {
    hooks: {
      payloads: (p) => {
        p.agent_passport['agent_id'] = victimAgentId;
        p.intent['agent_id'] = victimAgentId;
      },
      entry: (entry) => {
        if ('agent_id' in entry) entry['agent_id'] = victimAgentId;
      },
    },
  });
}

describe('who may register emergency tokens (EMERGENCY_REGISTRATION)', () => {
  let open: RunningService;
  let attested: RunningService;
  let operatorOnly: RunningService;

  beforeAll(async () => {
    const env = { JURISDICTION, EMERGENCY_MAX_PER_IP: '1000' };
    [open, attested, operatorOnly] = await Promise.all([
      startService({ env: { ...env, EMERGENCY_REGISTRATION: 'bundle' }, timer: false }),
      startService({ env, timer: false }), // attested is the default
      startService({ env: { ...env, EMERGENCY_REGISTRATION: 'operator' }, timer: false }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([open, attested, operatorOnly].map((s) => s?.close()));
  });

  it('bundle: a verified bundle naming an unregistered agent id is taken at its word', async () => {
    // Why it is not the default: first come, first served for ids never registered.
    const victim = bundleWithToken(newEmergencySecret());
    const squatter = squatterBundle(victim.agentId as string, newEmergencySecret());
    const res = await register(open, squatter.signed_bundle);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json['agent_id']).toBe(victim.agentId);
    expect(res.json['kids']).not.toContain(victim.agentKid);
  });

  it('P424: bundle: a self-made bundle does not tell whether the agent id has a token, and changes nothing if it has', async () => {
    // The owner of one agent registered its token; another agent id has none. The prober signs a bundle of its
    // own keys for each id, with a token of its own.
    const ownerSecret = newEmergencySecret();
    const owner = bundleWithToken(ownerSecret);
    const ownerId = owner.agentId as string;
    expect((await register(open, owner.signed_bundle)).status).toBe(201);
    const unregisteredId = bundleWithToken(newEmergencySecret()).agentId as string;
    const proberSecret = newEmergencySecret();
    const onRegistered = await register(open, squatterBundle(ownerId, proberSecret).signed_bundle);
    const onUnregistered = await register(
      open,
      squatterBundle(unregisteredId, newEmergencySecret()).signed_bundle,
    );
    // Before: 409 "Another emergency token is registered for this agent" against 201: the answer told which.
    expect(onRegistered.status, JSON.stringify(onRegistered.json)).toBe(onUnregistered.status);
    expect([...onRegistered.headers.keys()]).toEqual([...onUnregistered.headers.keys()]);
    const shape = (json: Record<string, unknown>) => ({
      ...json,
      agent_id: typeof json['agent_id'],
      kids: (json['kids'] as unknown[]).length,
      registered_at:
        typeof json['registered_at'] === 'string' && !Number.isNaN(Date.parse(json['registered_at'])),
    });
    expect(shape(onRegistered.json)).toEqual(shape(onUnregistered.json));
    expect(onRegistered.json['agent_id']).toBe(ownerId);
    // The owner's own bundle again: the same answer, so it tells nothing either.
    const again = await register(open, owner.signed_bundle);
    expect(again.status).toBe(onUnregistered.status);
    expect(Object.keys(again.json).sort()).toEqual(Object.keys(onUnregistered.json).sort());
    // Nothing changed: the first token stands, the prober's secret is the wrong one, the owner's revokes.
    expect((await emergencyRevoke(open, ownerId, proberSecret.hex)).status).toBe(403);
    expect((await emergencyRevoke(open, ownerId, ownerSecret.hex)).status).toBe(200);
  });

  it('attested (default): only agents this service attested with the same RPR can register; a squatter cannot', async () => {
    const secret = newEmergencySecret();
    const victim = bundleWithToken(secret);
    const agentId = victim.agentId as string;
    const refused = await register(attested, victim.signed_bundle);
    expect(refused.status).toBe(403);
    expect(refused.json['error']).toMatchObject({ code: 'FORBIDDEN' });

    const attest = await call(attested, 'POST', '/attest', {
      rpr_hash: rprHashOf(victim),
      agent_id: agentId,
    });
    expect(attest.status, JSON.stringify(attest.json)).toBe(200);
    const squatter = squatterBundle(agentId, newEmergencySecret());
    expect((await register(attested, squatter.signed_bundle)).status).toBe(403);
    const accepted = await register(attested, victim.signed_bundle);
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(201);
    expect((await emergencyRevoke(attested, agentId, secret.hex)).status).toBe(200);
  });

  it('operator: bundle registration is refused; the operator route still works', async () => {
    const secret = newEmergencySecret();
    const sample = bundleWithToken(secret);
    expect((await register(operatorOnly, sample.signed_bundle)).status).toBe(403);
    const put = await call(operatorOnly, 'PUT', `/emergency-tokens/${sample.agentId}`, {
      emergency_revocation_token: secret.token,
    });
    expect(put.status).toBe(201);
    expect((await emergencyRevoke(operatorOnly, sample.agentId as string, secret.hex)).status).toBe(200);
  });

  it('refuses an unknown EMERGENCY_REGISTRATION value at boot', async () => {
    await expect(
      startService({ env: { JURISDICTION, EMERGENCY_REGISTRATION: 'anyone' }, timer: false }),
    ).rejects.toThrow(/EMERGENCY_REGISTRATION/);
  });
});

describe('emergency revocation attempt limits', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService({
      env: {
        JURISDICTION,
        TRUST_PROXY: 'true',
        EMERGENCY_MAX_PER_IP: '3',
        EMERGENCY_MAX_PER_AGENT: '4',
        EMERGENCY_WINDOW_S: '60',
      },
      timer: false,
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  const from = (ip: string) => ({ 'x-forwarded-for': ip });

  it('limits attempts per IP: 429 with PROTO-E700 and Retry-After, other addresses unaffected', async () => {
    const attempts = [];
    for (let i = 0; i < 4; i++) {
      const agentId = `agent:limited-ip-${i}-${randomBytes(3).toString('hex')}`;
      attempts.push(await emergencyRevoke(service, agentId, newEmergencySecret().hex, from('198.51.100.7')));
    }
    expect(attempts.map((a) => a.status)).toEqual([403, 403, 403, 429]);
    const limited = attempts[3] as (typeof attempts)[number];
    expect(limited.json['error']).toMatchObject({ code: 'PROTO-E700', retryable: true });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Malformed bodies count too, and another address is not held back.
    expect((await postWithoutToken(service, '/emergency-revocations', {}, from('198.51.100.7'))).status).toBe(
      429,
    );
    expect(
      (await emergencyRevoke(service, 'agent:other-ip', newEmergencySecret().hex, from('198.51.100.8')))
        .status,
    ).toBe(403);
  });

  it('limits attempts per agent across addresses; the right secret still revokes once it is exceeded (P255)', async () => {
    const secret = newEmergencySecret();
    const sample = bundleWithToken(secret);
    expect((await registerAttested(service, sample)).status).toBe(201);
    const agentId = sample.agentId as string;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (await emergencyRevoke(service, agentId, newEmergencySecret().hex, from(`203.0.113.${i + 1}`)))
          .status,
      );
    }
    expect(statuses).toEqual([403, 403, 403, 403, 429]);
    const limited = await emergencyRevoke(service, agentId, newEmergencySecret().hex, from('203.0.113.49'));
    expect(limited.json['error']).toMatchObject({ code: 'PROTO-E700' });
    const right = await emergencyRevoke(service, agentId, secret.hex, from('203.0.113.50'));
    expect(right.status).toBe(200);
    expect(listedIds(await currentList(service))).toContain(agentId);
    // Another agent is not held back by this one's limit.
    expect(
      (await emergencyRevoke(service, 'agent:not-limited', newEmergencySecret().hex, from('203.0.113.60')))
        .status,
    ).toBe(403);
  });
});
