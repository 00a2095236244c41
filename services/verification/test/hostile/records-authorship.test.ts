// Issue 15's attacks on /v2 records, over HTTP against the records routes on every store dialect: anonymous
// lifecycle moves and forged certificates are refused under RECORDS_WRITE_POLICY=signed (the default).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildSignedBundle,
  createNativeBackend,
  deriveKid,
  PROFILES,
  type SigningKey,
  signRecord,
} from '@proto/core';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordsConfig, mountRecords } from '../../src/records/plugin.ts';
import {
  bodyOf,
  errorOf,
  example,
  get,
  type Json,
  post,
  type RecordsApp,
  startRecordsApp,
  withFields,
} from '../../src/records/test-support.ts';
import { MemoryKeyDirectory } from '../../src/records/write-authorization.ts';
import { keyOnceItAnswers, startApp } from '../../src/test-support.ts';
import { storeEnvOf } from './verifier-with-records.ts';

const backend = createNativeBackend();
const OPERATOR_TOKEN = 'operator-token-for-records-tests-0001';

/** An agent's key pair, bound in `directory` to the agent and its principal, as a verified bundle would. */
function bindAgent(directory: MemoryKeyDirectory, agentId: string, humanId: string) {
  const ed = backend.generateKeyPair('ed25519');
  const pq = backend.generateKeyPair('ml-dsa-65');
  const classical: SigningKey = {
    alg: 'ed25519',
    kid: deriveKid('ed25519', ed.publicKey),
    secretKey: ed.secretKey,
  };
  const pqKey: SigningKey = {
    alg: 'ml-dsa-65',
    kid: deriveKid('ml-dsa-65', pq.publicKey),
    secretKey: pq.secretKey,
  };
  const evidence = `sha256:${'ab'.repeat(32)}`;
  for (const [key, pub] of [
    [classical, ed.publicKey],
    [pqKey, pq.publicKey],
  ] as const) {
    directory.bind({ kid: key.kid, alg: key.alg, publicKey: pub, subjects: [agentId, humanId], evidence });
  }
  return {
    sign: (kind: string, record: Json) =>
      signRecord(backend, PROFILES.proto, kind, record, { classical, pq: pqKey }),
    kid: classical.kid,
  };
}

const send = (service: RecordsApp, url: string, body: unknown, token?: string) =>
  service.app.inject({
    method: 'POST',
    url,
    payload: body as Json,
    ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
  });

describe.each(dialectsUnderTest())('/v2 record authorship on %s', (dialect) => {
  let target: StoreTarget;
  let service: RecordsApp;
  const directory = new MemoryKeyDirectory();
  const victim = bindAgent(directory, 'agent:victim-01', 'human:victim-owner');
  const attacker = bindAgent(directory, 'agent:attacker-01', 'human:attacker-owner');

  const certificate = (agentId: string, humanId: string) =>
    withFields(example('commissioning_certificate'), { agent_id: agentId, human_id: humanId });

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'v2-authorship');
    service = await startRecordsApp({
      store: await target.open(),
      recordsEnv: { RECORDS_WRITE_POLICY: 'signed', OPERATOR_TOKEN },
      keys: directory,
    });
  });
  afterAll(async () => {
    await service?.close();
    await target?.cleanup();
  });

  it('a forged certificate (all-A signature) under the victim’s id is 400, and the real one is then stored', async () => {
    const real = victim.sign(
      'commissioning_certificate',
      certificate('agent:victim-01', 'human:victim-owner'),
    );
    const sig = real['composite_sig'] as { classical: Json; pq: Json };
    const forged = withFields(real, {
      purpose: 'Forged purpose',
      composite_sig: {
        ...sig,
        classical: { ...sig.classical, sig_b64: `${'A'.repeat(86)}==` },
        pq: { ...sig.pq, sig_b64: 'A'.repeat(String(sig.pq['sig_b64']).length) },
      },
    });
    const refused = await send(service, '/v2/lifecycle/commission', forged);
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused).code).toBe('PROTO-E100');

    const unsigned = await send(
      service,
      '/v2/lifecycle/commission',
      withFields(forged, { composite_sig: undefined }),
    );
    expect(unsigned.statusCode).toBeGreaterThanOrEqual(400);
    expect(unsigned.statusCode).toBeLessThan(500);

    const stored = await send(service, '/v2/lifecycle/commission', real);
    expect(stored.statusCode).toBe(201);
    expect(bodyOf(stored)['signature']).toMatchObject({ status: 'verified', kid: victim.kid });
  });

  it('a valid signature by another agent’s key is 403 and says how a key becomes bound', async () => {
    const byAttacker = attacker.sign(
      'commissioning_certificate',
      certificate('agent:victim-02', 'human:victim-owner'),
    );
    const refused = await send(service, '/v2/lifecycle/commission', byAttacker);
    expect(refused.statusCode).toBe(403);
    expect(errorOf(refused).message).toMatch(/POST \/verify/);
  });

  it('an anonymous transition of someone else’s agent is refused; the state does not move', async () => {
    const anonymous = await send(service, '/v2/lifecycle/transition', {
      agent_id: 'agent:victim-01',
      to_state: 'active',
    });
    expect(anonymous.statusCode).toBe(401);
    const byAttacker = await send(
      service,
      '/v2/lifecycle/transition',
      attacker.sign('lifecycle_transition', { agent_id: 'agent:victim-01', to_state: 'active' }),
    );
    expect(byAttacker.statusCode).toBe(403);
    const state = await get(service.app, '/v2/lifecycle/commission/agent:victim-01');
    expect(bodyOf(state)['state']).toBe('commissioned');
  });

  it('a signed transition statement by the agent’s principal moves it; a tampered one is 400', async () => {
    const statement = victim.sign('lifecycle_transition', {
      agent_id: 'agent:victim-01',
      to_state: 'active',
      reason: 'go live',
    });
    const tampered = await send(service, '/v2/lifecycle/transition', { ...statement, reason: 'other' });
    expect(tampered.statusCode).toBe(400);
    const moved = await send(service, '/v2/lifecycle/transition', statement);
    expect(moved.statusCode).toBe(200);
    expect(bodyOf(moved)).toMatchObject({
      state: 'active',
      signature: { status: 'verified', kid: victim.kid },
    });
  });

  it('the operator token makes an administrative write, marked as such; a wrong token is 401', async () => {
    // The schema example's placeholder signature: schema-valid, but no key could have made it.
    const unsigned = certificate('agent:admin-made', 'human:x');
    const wrong = await send(service, '/v2/lifecycle/commission', unsigned, 'not-the-operator-token-xxxx');
    expect(wrong.statusCode).toBe(401);
    const admin = await send(service, '/v2/lifecycle/commission', unsigned, OPERATOR_TOKEN);
    expect(admin.statusCode).toBe(201);
    expect(bodyOf(admin)['signature']).toEqual({ status: 'administrative' });
    const fetched = await get(service.app, '/v2/lifecycle/commission/agent:admin-made');
    expect(bodyOf(fetched)['signature']).toEqual({ status: 'administrative' });
  });

  it('an administrative write needs no placeholder signature, and only the token path may leave it out (P44)', async () => {
    const bare = withFields(certificate('agent:admin-bare', 'human:x'), { composite_sig: undefined });
    const anonymous = await send(service, '/v2/lifecycle/commission', bare);
    expect(anonymous.statusCode).toBe(400);
    expect(errorOf(anonymous).message).toMatch(/composite_sig/);
    const admin = await send(service, '/v2/lifecycle/commission', bare, OPERATOR_TOKEN);
    expect(admin.statusCode, admin.body).toBe(201);
    expect(bodyOf(admin)['signature']).toEqual({ status: 'administrative' });
    const fetched = bodyOf(await get(service.app, '/v2/lifecycle/commission/agent:admin-bare'));
    expect(fetched['signature']).toEqual({ status: 'administrative' });
    expect(fetched['record']).not.toHaveProperty('composite_sig');

    // The delegation mandate's member is human_composite_sig: the same rule applies to it.
    const mandate = withFields(example('delegation_mandate'), {
      mandate_id: 'mandate-admin-bare',
      human_composite_sig: undefined,
    });
    const mandateAdmin = await send(service, '/v2/delegation/mandate', mandate, OPERATOR_TOKEN);
    expect(mandateAdmin.statusCode, mandateAdmin.body).toBe(201);

    // A signature member that is present must still be well formed, token or not.
    const malformed = withFields(bare, {
      agent_id: 'agent:admin-malformed',
      composite_sig: { classical: 7 },
    });
    expect((await send(service, '/v2/lifecycle/commission', malformed, OPERATOR_TOKEN)).statusCode).toBe(400);
    // Any other missing member is still a schema error on the token path.
    const noPurpose = withFields(bare, { agent_id: 'agent:admin-nopurpose', purpose: undefined });
    expect((await send(service, '/v2/lifecycle/commission', noPurpose, OPERATOR_TOKEN)).statusCode).toBe(400);
  });
});

describe.each(dialectsUnderTest())('/v2 ids after retention on %s', (dialect) => {
  let target: StoreTarget;
  let service: RecordsApp;
  const directory = new MemoryKeyDirectory();
  const victim = bindAgent(directory, 'agent:victim-r', 'human:victim-r');
  const attacker = bindAgent(directory, 'agent:attacker-r', 'human:attacker-r');

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'v2-tombstones');
    const store = await target.open({ maxEntriesPerKind: 2 });
    // The disputes' respondent is an agent known here (P208).
    expect(await store.lifecycle.commission('agent:respondent-r')).toBe('created');
    service = await startRecordsApp({
      store,
      recordsEnv: { RECORDS_WRITE_POLICY: 'signed', OPERATOR_TOKEN },
      keys: directory,
    });
  });
  afterAll(async () => {
    await service?.close();
    await target?.cleanup();
  });

  const dispute = (keys: typeof victim, disputeId: string, initiator: string, summary: string) =>
    keys.sign(
      'dispute_record',
      withFields(example('dispute_record'), {
        dispute_id: disputeId,
        initiator_agent_id: initiator,
        respondent_agent_id: 'agent:respondent-r',
        evidence_hashes: [`sha256:${summary.padEnd(64, '0')}`],
      }),
    );

  it('flooding a kind until the victim’s record is evicted does not free its id for another record', async () => {
    const original = dispute(victim, 'dispute-victim-1', 'agent:victim-r', 'aa');
    expect((await send(service, '/v2/dispute/record', original)).statusCode).toBe(201);
    for (let i = 0; i < 3; i++) {
      const filler = dispute(attacker, `dispute-filler-${i}`, 'agent:attacker-r', `b${i}`);
      expect((await send(service, '/v2/dispute/record', filler)).statusCode).toBe(201);
    }
    expect((await get(service.app, '/v2/dispute/record/dispute-victim-1')).statusCode).toBe(404);

    const hijack = dispute(attacker, 'dispute-victim-1', 'agent:attacker-r', 'cc');
    const refused = await send(service, '/v2/dispute/record', hijack);
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).message).toMatch(/never changes meaning/);
    // The evicted record itself may come back under its id.
    expect((await send(service, '/v2/dispute/record', original)).statusCode).toBe(201);
  });
});

describe.each(dialectsUnderTest())('/v2 testament versions under concurrency on %s', (dialect) => {
  let target: StoreTarget;
  let service: RecordsApp;
  const directory = new MemoryKeyDirectory();
  const author = bindAgent(directory, 'agent:testator', 'human:testator');

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'v2-testament-race');
    service = await startRecordsApp({
      store: await target.open(),
      recordsEnv: { RECORDS_WRITE_POLICY: 'signed', OPERATOR_TOKEN },
      keys: directory,
    });
  });
  afterAll(async () => {
    await service?.close();
    await target?.cleanup();
  });

  it('racing new versions are ordered: a lower version is never stored after a higher one', async () => {
    const version = (n: number) =>
      author.sign(
        'digital_testament',
        withFields(example('digital_testament'), { agent_id: 'agent:testator', testament_version: n }),
      );
    expect((await send(service, '/v2/succession/testament', version(1))).statusCode).toBe(201);
    const signed = [9, 3, 8, 2, 7, 4, 6, 5].map(version);
    const answers = await Promise.all(signed.map((t) => send(service, '/v2/succession/testament', t)));
    for (const a of answers) expect([201, 409]).toContain(a.statusCode);
    const latest = bodyOf(await get(service.app, '/v2/succession/testament/agent:testator'));
    expect((latest['record'] as Json)['testament_version']).toBe(9);
  });
});

describe('/v2 succession of a live agent', () => {
  it('is refused while the predecessor is commissioned or active, accepted once it is declining', async () => {
    const target = await createStoreTarget('sqlite', 'v2-succession');
    // Signed by a key bound to each record's subjects (the test signer; default policy).
    const service = await startRecordsApp({ store: await target.open() });
    try {
      const agentId = 'agent:predecessor-1';
      const cert = withFields(example('commissioning_certificate'), { agent_id: agentId });
      expect((await post(service.app, '/v2/lifecycle/commission', cert)).statusCode).toBe(201);
      const succession = withFields(example('succession_record'), { predecessor_agent_id: agentId });
      const early = await post(service.app, '/v2/succession/record', succession);
      expect(early.statusCode).toBe(409);
      expect(errorOf(early).details).toMatchObject({ current_state: 'commissioned' });
      for (const to of ['active', 'declining']) {
        const moved = await post(service.app, '/v2/lifecycle/transition', {
          agent_id: agentId,
          to_state: to,
        });
        expect(moved.statusCode).toBe(200);
      }
      expect((await post(service.app, '/v2/succession/record', succession)).statusCode).toBe(201);
    } finally {
      await service.close();
      await target.cleanup();
    }
  });
});

describe.each(dialectsUnderTest())(
  'key directory fed by POST /verify, in the real verification service, on %s',
  (dialect) => {
    let target: StoreTarget;
    let dataDir: string;
    beforeAll(async () => {
      target = await createStoreTarget(dialect, 'v2-keys-e2e');
      dataDir = await mkdtemp(join(tmpdir(), 'proto-records-keys-'));
    });
    afterAll(async () => {
      await target?.cleanup();
      await rm(dataDir, { recursive: true, force: true });
    });

    const storeEnv = () => storeEnvOf(target, dataDir);

    it('a verified bundle binds its keys; records signed with them are stored as verified; others are 403', async () => {
      const mounted = await mountRecords(loadRecordsConfig({ ...storeEnv(), OPERATOR_TOKEN }));
      const running = await startApp({ ...storeEnv(), VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [
        mounted,
      ]);
      try {
        const built = buildSignedBundle();
        const bundle = built.signed_bundle['bundle'] as Json;
        const agentId = ((bundle['agent_passport'] as Json)['payload'] as Json)['agent_id'] as string;
        const humanId = ((bundle['responsible_principal_record'] as Json)['payload'] as Json)[
          'human_id'
        ] as string;
        const agentKeys = {
          classical: built.keys.agent.classical,
          ...(built.keys.agent.pq === undefined ? {} : { pq: built.keys.agent.pq }),
        };
        const principalKeys = {
          classical: built.keys.principal.classical,
          ...(built.keys.principal.pq === undefined ? {} : { pq: built.keys.principal.pq }),
        };
        const postJson = (path: string, body: unknown) =>
          fetch(`${running.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        const certificate = signRecord(
          backend,
          PROFILES.proto,
          'commissioning_certificate',
          withFields(example('commissioning_certificate'), { agent_id: agentId, human_id: humanId }),
          agentKeys,
        );

        const early = await postJson('/v2/lifecycle/commission', certificate);
        expect(early.status, 'before the bundle is verified the key is unknown').toBe(403);
        expect(await (await fetch(`${running.url}/v2/keys/${agentKeys.classical.kid}`)).status).toBe(404);

        const verified = await postJson('/verify', { signed_bundle: built.signed_bundle });
        expect(((await verified.json()) as Json)['verified']).toBe(true);

        const keyAnswer = await keyOnceItAnswers(running.url, agentKeys.classical.kid);
        expect(await keyAnswer.json()).toMatchObject({
          kid: agentKeys.classical.kid,
          bindings: [{ subject: agentId, role: 'passport', evidence: built.bundleHash }],
        });

        const stored = await postJson('/v2/lifecycle/commission', certificate);
        expect(stored.status, await stored.clone().text()).toBe(201);
        expect(((await stored.json()) as Json)['signature']).toMatchObject({
          status: 'verified',
          kid: agentKeys.classical.kid,
          evidence: built.bundleHash,
        });

        const fetched = await fetch(`${running.url}/v2/lifecycle/commission/${agentId}`);
        expect(((await fetched.json()) as Json)['signature']).toMatchObject({
          status: 'verified',
          kid: agentKeys.classical.kid,
          evidence: built.bundleHash,
        });

        const statement = signRecord(
          backend,
          PROFILES.proto,
          'lifecycle_transition',
          { agent_id: agentId, to_state: 'active' },
          principalKeys,
        );
        const moved = await postJson('/v2/lifecycle/transition', statement);
        expect(moved.status, await moved.clone().text()).toBe(200);

        // The bundle's keys do not sign for anyone else.
        const other = signRecord(
          backend,
          PROFILES.proto,
          'commissioning_certificate',
          withFields(example('commissioning_certificate'), {
            agent_id: 'agent:someone-else',
            human_id: 'human:other',
          }),
          agentKeys,
        );
        expect((await postJson('/v2/lifecycle/commission', other)).status).toBe(403);

        // The binding lives in this dialect's database (another replica on it would see it).
        const replica = await target.open({ name: 'verification' });
        expect((await replica.keys.lookup(agentKeys.classical.kid)).map((r) => r.subject)).toEqual([agentId]);
      } finally {
        await running.close();
      }
    });
  },
);
