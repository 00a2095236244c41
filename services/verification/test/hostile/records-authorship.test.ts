// Issue 15's attacks on /v2 records, over HTTP against the records routes on every store dialect: anonymous
// lifecycle moves and forged certificates are refused under RECORDS_WRITE_POLICY=signed (the default).
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bindTestAgent,
  bodyOf,
  errorOf,
  example,
  get,
  type Json,
  post,
  postAsIs,
  type RecordsApp,
  startRecordsOnFreshStore,
  TEST_OPERATOR_TOKEN,
  withFields,
} from '../../src/records/test-support.ts';
import { MemoryKeyDirectory } from '../../src/records/write-authorization.ts';
import { keyOnceItAnswers } from '../../src/test-support.ts';
import { partyOf, startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();

describe.each(dialectsUnderTest())('/v2 record authorship on %s', (dialect) => {
  let service: RecordsApp;
  const directory = new MemoryKeyDirectory();
  const victim = bindTestAgent(directory, 'agent:victim-01', 'human:victim-owner');
  const attacker = bindTestAgent(directory, 'agent:attacker-01', 'human:attacker-owner');

  const certificate = (agentId: string, humanId: string) =>
    withFields(example('commissioning_certificate'), { agent_id: agentId, human_id: humanId });

  beforeAll(async () => {
    service = await startRecordsOnFreshStore(dialect, 'v2-authorship', { keys: directory });
  });
  afterAll(async () => {
    await service?.close();
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
    const refused = await postAsIs(service.app, '/v2/lifecycle/commission', forged);
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused).code).toBe('PROTO-E100');

    const unsigned = await postAsIs(
      service.app,
      '/v2/lifecycle/commission',
      withFields(forged, { composite_sig: undefined }),
    );
    expect(unsigned.statusCode).toBeGreaterThanOrEqual(400);
    expect(unsigned.statusCode).toBeLessThan(500);

    const stored = await postAsIs(service.app, '/v2/lifecycle/commission', real);
    expect(stored.statusCode).toBe(201);
    expect(bodyOf(stored)['signature']).toMatchObject({ status: 'verified', kid: victim.kid });
  });

  it('a valid signature by another agent’s key is 403 and says how a key becomes bound', async () => {
    const byAttacker = attacker.sign(
      'commissioning_certificate',
      certificate('agent:victim-02', 'human:victim-owner'),
    );
    const refused = await postAsIs(service.app, '/v2/lifecycle/commission', byAttacker);
    expect(refused.statusCode).toBe(403);
    expect(errorOf(refused).message).toMatch(/POST \/verify/);
  });

  it('an anonymous transition of someone else’s agent is refused; the state does not move', async () => {
    const anonymous = await postAsIs(service.app, '/v2/lifecycle/transition', {
      agent_id: 'agent:victim-01',
      to_state: 'active',
    });
    expect(anonymous.statusCode).toBe(401);
    const byAttacker = await postAsIs(
      service.app,
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
    const tampered = await postAsIs(service.app, '/v2/lifecycle/transition', {
      ...statement,
      reason: 'other',
    });
    expect(tampered.statusCode).toBe(400);
    const moved = await postAsIs(service.app, '/v2/lifecycle/transition', statement);
    expect(moved.statusCode).toBe(200);
    expect(bodyOf(moved)).toMatchObject({
      state: 'active',
      signature: { status: 'verified', kid: victim.kid },
    });
  });

  it('the operator token makes an administrative write, marked as such; a wrong token is 401', async () => {
    // The schema example's placeholder signature: schema-valid, but no key could have made it.
    const unsigned = certificate('agent:admin-made', 'human:x');
    const wrong = await postAsIs(
      service.app,
      '/v2/lifecycle/commission',
      unsigned,
      'not-the-operator-token-xxxx',
    );
    expect(wrong.statusCode).toBe(401);
    const admin = await postAsIs(service.app, '/v2/lifecycle/commission', unsigned, TEST_OPERATOR_TOKEN);
    expect(admin.statusCode).toBe(201);
    expect(bodyOf(admin)['signature']).toEqual({ status: 'administrative' });
    const fetched = await get(service.app, '/v2/lifecycle/commission/agent:admin-made');
    expect(bodyOf(fetched)['signature']).toEqual({ status: 'administrative' });
  });

  it('an administrative write needs no placeholder signature, and only the token path may leave it out (P44)', async () => {
    const bare = withFields(certificate('agent:admin-bare', 'human:x'), { composite_sig: undefined });
    const anonymous = await postAsIs(service.app, '/v2/lifecycle/commission', bare);
    expect(anonymous.statusCode).toBe(400);
    expect(errorOf(anonymous).message).toMatch(/composite_sig/);
    const admin = await postAsIs(service.app, '/v2/lifecycle/commission', bare, TEST_OPERATOR_TOKEN);
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
    const mandateAdmin = await postAsIs(service.app, '/v2/delegation/mandate', mandate, TEST_OPERATOR_TOKEN);
    expect(mandateAdmin.statusCode, mandateAdmin.body).toBe(201);

    // A signature member that is present must still be well formed, token or not.
    const malformed = withFields(bare, {
      agent_id: 'agent:admin-malformed',
      composite_sig: { classical: 7 },
    });
    expect(
      (await postAsIs(service.app, '/v2/lifecycle/commission', malformed, TEST_OPERATOR_TOKEN)).statusCode,
    ).toBe(400);
    // Any other missing member is still a schema error on the token path.
    const noPurpose = withFields(bare, { agent_id: 'agent:admin-nopurpose', purpose: undefined });
    expect(
      (await postAsIs(service.app, '/v2/lifecycle/commission', noPurpose, TEST_OPERATOR_TOKEN)).statusCode,
    ).toBe(400);
  });
});

describe.each(dialectsUnderTest())('/v2 ids after retention on %s', (dialect) => {
  let service: RecordsApp;
  const directory = new MemoryKeyDirectory();
  const victim = bindTestAgent(directory, 'agent:victim-r', 'human:victim-r');
  const attacker = bindTestAgent(directory, 'agent:attacker-r', 'human:attacker-r');

  beforeAll(async () => {
    service = await startRecordsOnFreshStore(dialect, 'v2-tombstones', {
      keys: directory,
      storeOptions: { maxEntriesPerKind: 2 },
      // The disputes' respondent is an agent known here (P208).
      seed: async (store) => {
        expect(await store.lifecycle.commission('agent:respondent-r')).toBe('created');
      },
    });
  });
  afterAll(async () => {
    await service?.close();
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
    expect((await postAsIs(service.app, '/v2/dispute/record', original)).statusCode).toBe(201);
    for (let i = 0; i < 3; i++) {
      const filler = dispute(attacker, `dispute-filler-${i}`, 'agent:attacker-r', `b${i}`);
      expect((await postAsIs(service.app, '/v2/dispute/record', filler)).statusCode).toBe(201);
    }
    expect((await get(service.app, '/v2/dispute/record/dispute-victim-1')).statusCode).toBe(404);

    const hijack = dispute(attacker, 'dispute-victim-1', 'agent:attacker-r', 'cc');
    const refused = await postAsIs(service.app, '/v2/dispute/record', hijack);
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).message).toMatch(/never changes meaning/);
    // The evicted record itself may come back under its id.
    expect((await postAsIs(service.app, '/v2/dispute/record', original)).statusCode).toBe(201);
  });
});

describe.each(dialectsUnderTest())('/v2 testament versions under concurrency on %s', (dialect) => {
  let service: RecordsApp;
  const directory = new MemoryKeyDirectory();
  const author = bindTestAgent(directory, 'agent:testator', 'human:testator');

  beforeAll(async () => {
    service = await startRecordsOnFreshStore(dialect, 'v2-testament-race', { keys: directory });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('racing new versions are ordered: a lower version is never stored after a higher one', async () => {
    const version = (n: number) =>
      author.sign(
        'digital_testament',
        withFields(example('digital_testament'), { agent_id: 'agent:testator', testament_version: n }),
      );
    expect((await postAsIs(service.app, '/v2/succession/testament', version(1))).statusCode).toBe(201);
    const signed = [9, 3, 8, 2, 7, 4, 6, 5].map(version);
    const answers = await Promise.all(
      signed.map((t) => postAsIs(service.app, '/v2/succession/testament', t)),
    );
    for (const a of answers) expect([201, 409]).toContain(a.statusCode);
    const latest = bodyOf(await get(service.app, '/v2/succession/testament/agent:testator'));
    expect((latest['record'] as Json)['testament_version']).toBe(9);
  });
});

describe('/v2 succession of a live agent', () => {
  it('is refused while the predecessor is commissioned or active, accepted once it is declining', async () => {
    // Signed by a key bound to each record's subjects (the test signer; default policy).
    const service = await startRecordsOnFreshStore('sqlite', 'v2-succession');
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
    }
  });
});

describe.each(dialectsUnderTest())(
  'key directory fed by POST /verify, in the real verification service, on %s',
  (dialect) => {
    let service: VerifierWithRecords | undefined;
    afterAll(async () => {
      await service?.close();
    });

    it('a verified bundle binds its keys; records signed with them are stored as verified; others are 403', async () => {
      service = await startVerifierWithRecords(dialect, 'v2-keys-e2e', {
        OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
      });
      const { url } = service;
      const built = buildSignedBundle();
      const { agentId, humanId, agentKeys, principalKeys } = partyOf(built);
      const certificate = signRecord(
        backend,
        PROFILES.proto,
        'commissioning_certificate',
        withFields(example('commissioning_certificate'), { agent_id: agentId, human_id: humanId }),
        agentKeys,
      );

      const early = await service.post('/v2/lifecycle/commission', certificate);
      expect(early.status, 'before the bundle is verified the key is unknown').toBe(403);
      expect(await service.keyStatus(agentKeys.classical.kid)).toBe(404);

      const verified = await service.post('/verify', { signed_bundle: built.signed_bundle });
      expect(verified.json['verified']).toBe(true);

      const keyAnswer = await keyOnceItAnswers(url, agentKeys.classical.kid);
      expect(await keyAnswer.json()).toMatchObject({
        kid: agentKeys.classical.kid,
        bindings: [{ subject: agentId, role: 'passport', evidence: built.bundleHash }],
      });

      const stored = await service.post('/v2/lifecycle/commission', certificate);
      expect(stored.status, JSON.stringify(stored.json)).toBe(201);
      expect(stored.json['signature']).toMatchObject({
        status: 'verified',
        kid: agentKeys.classical.kid,
        evidence: built.bundleHash,
      });

      const fetched = await fetch(`${url}/v2/lifecycle/commission/${agentId}`);
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
      const moved = await service.post('/v2/lifecycle/transition', statement);
      expect(moved.status, JSON.stringify(moved.json)).toBe(200);

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
      expect((await service.post('/v2/lifecycle/commission', other)).status).toBe(403);

      // The binding lives in this dialect's database (another replica on it would see it).
      const replica = await service.replica();
      expect((await replica.keys.lookup(agentKeys.classical.kid)).map((r) => r.subject)).toEqual([agentId]);
    });
  },
);
