// Issue 15 item 1 (rest): a revoked agent or kid stops authorising /v2 record writes, with the revocation
// lists POST /verify uses (a real revocation service in-process); an unreachable source fails writes closed (P43).
import { buildSignedBundle, createNativeBackend, PROFILES, type SigningKey, signRecord } from '@proto/core';
import { type RunningService, revoke, startService, tempDir } from '@proto/revocation/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();
const OPERATOR_TOKEN = 'operator-token-for-records-revocation-01';

type Keys = { classical: SigningKey; pq?: SigningKey };
const keysOf = (k: { classical: SigningKey; pq?: SigningKey | undefined }): Keys => ({
  classical: k.classical,
  ...(k.pq === undefined ? {} : { pq: k.pq }),
});

/** A builder bundle, its agent/human ids and both key sets. */
function party() {
  const built = buildSignedBundle();
  const bundle = built.signed_bundle['bundle'] as Json;
  const agentId = ((bundle['agent_passport'] as Json)['payload'] as Json)['agent_id'] as string;
  const humanId = ((bundle['responsible_principal_record'] as Json)['payload'] as Json)['human_id'] as string;
  return {
    built,
    agentId,
    humanId,
    agent: keysOf(built.keys.agent),
    principal: keysOf(built.keys.principal),
  };
}
type Party = ReturnType<typeof party>;

const certificateOf = (p: Party) =>
  signRecord(
    backend,
    PROFILES.proto,
    'commissioning_certificate',
    withFields(example('commissioning_certificate'), { agent_id: p.agentId, human_id: p.humanId }),
    p.agent,
  );

let us: RunningService;
let usDir: { dir: string; remove(): void };
let service: VerifierWithRecords;

const post = (path: string, body: unknown, token?: string) =>
  service.post(path, body, token === undefined ? {} : { authorization: `Bearer ${token}` });

/** Verifies the party's bundle and waits until the directory has bound its passport key. */
async function bindByVerifying(p: Party): Promise<void> {
  const verified = await post('/verify', { signed_bundle: p.built.signed_bundle });
  expect(verified.json['verified'], JSON.stringify(verified.json)).toBe(true);
  expect(await service.keyStatusOnce(p.agent.classical.kid, 200)).toBe(200);
}

beforeAll(async () => {
  usDir = tempDir('records-us');
  // max-age 0: every check revalidates, so a revocation is seen at the next write.
  us = await startService({
    dataDir: usDir.dir,
    env: { JURISDICTION: 'US', LIST_MAX_AGE_S: '0', LOG_LEVEL: 'warn' },
    timer: false,
  });
  const health = (await (await fetch(`${us.url}/health`)).json()) as Json;
  const sources = JSON.stringify({ US: { url: us.listUrl, keys: [health['revocation_public_key_b64']] } });
  // The helper's service feeds the records from its own validated configuration, as main.ts does.
  service = await startVerifierWithRecords('sqlite', 'records-revocation', {
    LOG_LEVEL: 'silent',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    REVOCATION_SOURCES: sources,
    OPERATOR_TOKEN,
  });
});

afterAll(async () => {
  await service?.close();
  await us?.close();
  usDir?.remove();
});

describe('/v2 record writes and the revocation lists of /verify', () => {
  it('a revoked agent’s key no longer authorises its records (403 E300); before the revocation it did', async () => {
    const alice = party();
    await bindByVerifying(alice);
    const first = await post('/v2/lifecycle/commission', certificateOf(alice));
    expect(first.status, JSON.stringify(first.json)).toBe(201);

    expect((await revoke(us, alice.agentId)).status).toBe(201);
    const statement = signRecord(
      backend,
      PROFILES.proto,
      'lifecycle_transition',
      { agent_id: alice.agentId, to_state: 'active' },
      alice.principal,
    );
    const refused = await post('/v2/lifecycle/transition', statement);
    expect(refused.status, JSON.stringify(refused.json)).toBe(403);
    const error = refused.json['error'] as Json;
    expect(error['code']).toBe('PROTO-E300');
    expect(error['message']).toMatch(/revoked/);
    expect(error['message']).toMatch(/operator token/);

    // The operator can still act on a revoked agent (an administrative write, marked so).
    const admin = await post(
      '/v2/lifecycle/transition',
      { agent_id: alice.agentId, to_state: 'active' },
      OPERATOR_TOKEN,
    );
    expect(admin.status, JSON.stringify(admin.json)).toBe(200);
    expect(admin.json['signature']).toEqual({ status: 'administrative' });
  });

  it('a revoked kid no longer authorises, while the agent’s other key still does', async () => {
    const bob = party();
    await bindByVerifying(bob);
    // A list entry naming the passport's classical kid (the revocation service accepts any id string).
    const revoked = await revoke(us, bob.agent.classical.kid);
    expect(revoked.status, JSON.stringify(revoked.json)).toBe(201);
    const refused = await post('/v2/lifecycle/commission', certificateOf(bob));
    expect(refused.status, JSON.stringify(refused.json)).toBe(403);
    expect((refused.json['error'] as Json)['details']).toEqual({ revoked: bob.agent.classical.kid });

    // The principal's binding keys are a different kid: they still sign for the agent.
    const byPrincipal = signRecord(
      backend,
      PROFILES.proto,
      'commissioning_certificate',
      withFields(example('commissioning_certificate'), { agent_id: bob.agentId, human_id: bob.humanId }),
      bob.principal,
    );
    const stored = await post('/v2/lifecycle/commission', byPrincipal);
    expect(stored.status, JSON.stringify(stored.json)).toBe(201);
  });

  it('an unreachable revocation source fails signed writes closed (503, retryable); the token still writes', async () => {
    const carol = party();
    await bindByVerifying(carol);
    await us.close();
    const refused = await post('/v2/lifecycle/commission', certificateOf(carol));
    expect(refused.status, JSON.stringify(refused.json)).toBe(503);
    expect(refused.json['error']).toMatchObject({ code: 'PROTO-E701', retryable: true });
    expect(refused.headers.get('retry-after')).not.toBeNull();
    const admin = await post(
      '/v2/lifecycle/commission',
      withFields(example('commissioning_certificate'), { agent_id: carol.agentId, human_id: carol.humanId }),
      OPERATOR_TOKEN,
    );
    expect(admin.status, JSON.stringify(admin.json)).toBe(201);
  });
});
