// /v2 records written at once through two verification replicas on one store (brief "races" item 4), over real
// HTTP on every dialect: two rival texts of one dispute each signed by the whole panel (P240 with P372: one text
// settles it, the same on both replicas), and every member of an M-of-N panel signing the same resolution on both
// replicas at once (P297: each appointed arbitrator counted once, the quorum reached, one copy stored), rival appeal
// outcomes (P296 with P378: one decides the appeal) and conflicting lifecycle moves (D16: one wins).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVerificationConfig } from '../../src/config.ts';
import { signedPayloadHash } from '../../src/records/panel-quorum.ts';
import { mountRecords } from '../../src/records/plugin.ts';
import { example, type Json, TEST_OPERATOR_TOKEN, withFields } from '../../src/records/test-support.ts';
import { keyOnceItAnswers, type RunningApp, startApp } from '../../src/test-support.ts';
import { commissioningCertificate, partyOf, storeEnvOf } from './verifier-with-records.ts';

const backend = createNativeBackend();
type Keys = ReturnType<typeof partyOf>['agentKeys'];

describe.each(dialectsUnderTest())('/v2 records through two replicas at once, on %s', (dialect) => {
  let target: StoreTarget;
  let dataDir: string;
  const replicas: RunningApp[] = [];
  const initiator = partyOf(buildSignedBundle());
  const respondent = partyOf(buildSignedBundle());
  const arbitrators = [0, 1, 2].map(() => partyOf(buildSignedBundle()));
  const mover = partyOf(buildSignedBundle());

  const post = async (
    replica: RunningApp,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${replica.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const sign = (kind: string, record: Json, keys: Keys) =>
    signRecord(backend, PROFILES.proto, kind, record, keys);
  const file = async (id: string, fields: Json = {}) => {
    const dispute = withFields(example('dispute_record'), {
      dispute_id: id,
      initiator_agent_id: initiator.agentId,
      respondent_agent_id: respondent.agentId,
      ...fields,
    });
    const filed = await post(
      replicas[0] as RunningApp,
      '/v2/dispute/record',
      sign('dispute_record', dispute, initiator.agentKeys),
    );
    expect(filed.status, JSON.stringify(filed.json)).toBe(201);
  };
  const resolution = (id: string, text: string, keys: Keys, fields: Json = {}) =>
    sign(
      'arbitration_resolution',
      withFields(example('arbitration_resolution'), {
        dispute_id: id,
        arbitrator_ids: arbitrators.map((a) => a.agentId),
        resolution: text,
        ...fields,
      }),
      keys,
    );

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'v2-replicas-race');
    dataDir = await mkdtemp(join(tmpdir(), 'proto-v2-replicas-race-'));
    const env = {
      ...storeEnvOf(target, dataDir),
      RECORDS_ARBITRATORS: arbitrators.map((a) => a.agentId).join(','),
      RECORDS_PANEL_QUORUM: '2',
      OPERATOR_TOKEN: TEST_OPERATOR_TOKEN,
    };
    for (let i = 0; i < 2; i++) {
      const mounted = await mountRecords(loadVerificationConfig({ ...env, HOST: '127.0.0.1', PORT: '0' }));
      replicas.push(await startApp({ ...env, VERIFY_WORKERS: '1', MAX_EVENT_LOOP_DELAY_MS: '0' }, [mounted]));
    }
    // Each party's keys bound in the shared key directory (through either replica).
    for (const [i, party] of [initiator, respondent, ...arbitrators, mover].entries()) {
      const replica = replicas[i % 2] as RunningApp;
      const verified = await post(replica, '/verify', { signed_bundle: party.built.signed_bundle });
      expect(verified.json['verified']).toBe(true);
      for (const kid of [party.agentKeys.classical.kid, party.principalKeys.classical.kid]) {
        const res = await keyOnceItAnswers(replica.url, kid, 200);
        await res.arrayBuffer();
        expect(res.status).toBe(200);
      }
    }
  }, 180_000);
  afterAll(async () => {
    for (const replica of replicas) await replica.close();
    await target?.cleanup();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('P240, P372: of two rival texts each signed by the whole panel at once on both replicas, one settles', async () => {
    const id = 'dispute:races-rival-resolutions';
    await file(id);
    const texts = [
      'Ruling A: the ledger goes to the initiator.',
      'Ruling B: the ledger goes to the respondent.',
    ];
    // Each member signs both texts; the six posts race across the replicas. Under RECORDS_PANEL_QUORUM=2 each text is
    // counted on its own (P372) and the first to reach two members settles the dispute; the other is 409 from then.
    const rivals = arbitrators.flatMap((arbitrator) =>
      texts.map((text) => resolution(id, text, arbitrator.agentKeys)),
    );
    const answers = await Promise.all(
      rivals.map((record, i) => post(replicas[i % 2] as RunningApp, '/v2/dispute/arbitration', record)),
    );
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s !== 200 && s !== 201 && s !== 409),
      String(statuses),
    ).toEqual([]);
    const settled: unknown[] = [];
    for (const replica of replicas) {
      const state = (await (await fetch(`${replica.url}/v2/dispute/record/${id}`)).json()) as Json;
      expect(state['state'], JSON.stringify(state)).toBe('resolved');
      const stored = (await (await fetch(`${replica.url}/v2/dispute/arbitration/${id}`)).json()) as Json;
      settled.push((stored['record'] as Json | undefined)?.['resolution']);
      expect(
        ((stored['panel'] as Json | undefined)?.['signed_by'] as unknown[] | undefined)?.length,
      ).toBeGreaterThanOrEqual(2);
    }
    // Both replicas answer the same text, one of the two.
    expect(texts).toContain(settled[0]);
    expect(settled[1]).toBe(settled[0]);
  });

  it('P297: the whole panel signing at once on both replicas is counted once each and resolves', async () => {
    const id = 'dispute:races-panel-at-once';
    await file(id);
    const text = 'Ledger writes alternate in 15-minute windows.';
    // Every member with both of its keys, each copy sent to both replicas: 12 posts of one payload.
    const copies = arbitrators.flatMap((a) => [
      resolution(id, text, a.agentKeys),
      resolution(id, text, a.principalKeys),
    ]);
    const answers = await Promise.all(
      copies.flatMap((record) => replicas.map((replica) => post(replica, '/v2/dispute/arbitration', record))),
    );
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s === 201),
      String(statuses),
    ).toHaveLength(1);
    expect(
      statuses.filter((s) => s === 200),
      String(statuses),
    ).toHaveLength(answers.length - 1);
    const store = await target.open({ name: 'verification' });
    const stored = await store.records.get('arbitration_resolution', id);
    expect(stored).toBeDefined();
    // One row per appointed arbitrator, each with one of its keys (the primary keys hold that on every dialect).
    const rows = await store.records.panelSignatures(id, signedPayloadHash(stored?.record));
    expect(rows.map((r) => r.arbitratorId).sort()).toEqual(arbitrators.map((a) => a.agentId).sort());
    for (const replica of replicas) {
      const state = (await (await fetch(`${replica.url}/v2/dispute/record/${id}`)).json()) as Json;
      expect(state).toMatchObject({
        state: 'resolved',
        resolution: { id, panel: { quorum: 2, signed_by: arbitrators.map((a) => a.agentId) } },
      });
    }
  });

  it('of conflicting lifecycle moves sent at once to both replicas, exactly one wins', async () => {
    const [a, b] = replicas as [RunningApp, RunningApp];
    const commissioned = await post(
      a,
      '/v2/lifecycle/commission',
      commissioningCertificate(mover, mover.built.keys.agent),
    );
    expect(commissioned.status, JSON.stringify(commissioned.json)).toBe(201);
    const move = (replica: RunningApp, fields: Json) =>
      post(
        replica,
        '/v2/lifecycle/transition',
        sign('lifecycle_transition', { agent_id: mover.agentId, ...fields }, mover.agentKeys),
      );
    expect((await move(b, { to_state: 'active', timestamp: new Date().toISOString() })).status).toBe(200);
    const timestamp = new Date(Date.now() + 1000).toISOString();
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, n) =>
        move(n % 2 === 0 ? a : b, {
          from_state: 'active',
          to_state: n % 4 < 2 ? 'declining' : 'decommissioned',
          timestamp,
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.filter((s) => s === 200),
      String(statuses),
    ).toHaveLength(1);
    expect(
      statuses.filter((s) => s === 409),
      String(statuses),
    ).toHaveLength(15);
    const winner = answers.find((answer) => answer.status === 200)?.json['state'];
    for (const replica of replicas) {
      const res = await fetch(`${replica.url}/v2/lifecycle/commission/${mover.agentId}`);
      expect(((await res.json()) as Json)['state']).toBe(winner);
    }
  });

  it('P296, P378: of two rival appeal outcomes each signed by the whole panel at once, one decides the appeal', async () => {
    const id = 'dispute:races-appeal-outcomes';
    const decision = resolution(id, 'The initiator keeps the ledger.', arbitrators[0]?.agentKeys as Keys, {
      timestamp: '2026-06-02T09:00:00Z',
    });
    const operator = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
    const first = await post(replicas[0] as RunningApp, '/v2/dispute/arbitration', decision, operator);
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    await file(id, { status: 'appealed', escalation_level: 'human_appeal' });
    const texts = ['On appeal A: split it.', 'On appeal B: the respondent keeps it.'];
    const rivals = arbitrators.flatMap((arbitrator) =>
      texts.map((text) => resolution(id, text, arbitrator.agentKeys, { timestamp: '2026-06-05T12:00:00Z' })),
    );
    const answers = await Promise.all(
      rivals.map((record, i) => post(replicas[i % 2] as RunningApp, '/v2/dispute/arbitration', record)),
    );
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s !== 200 && s !== 201 && s !== 409),
      JSON.stringify(answers.map((a) => a.json)).slice(0, 600),
    ).toEqual([]);
    const outcomes: unknown[] = [];
    for (const replica of replicas) {
      const stored = (await (await fetch(`${replica.url}/v2/dispute/arbitration/${id}`)).json()) as Json;
      expect(stored).toMatchObject({ record: decision });
      outcomes.push(
        ((stored['appeal_outcome'] as Json | undefined)?.['record'] as Json | undefined)?.['resolution'],
      );
    }
    expect(texts).toContain(outcomes[0]);
    expect(outcomes[1]).toBe(outcomes[0]);
  });
});
