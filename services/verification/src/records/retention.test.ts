// Retention of the /v2 stores on every dialect: at most STORE_MAX_ENTRIES per kind, oldest evicted first,
// and eviction never breaks a live agent's lifecycle state or vitality chain. Covers D17 (issue item 5).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@proto/service-kit';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bodyOf,
  errorOf,
  example,
  get,
  type Json,
  post,
  type RecordsApp,
  sentRecord,
  sha256Of,
  startRecordsApp,
  startRecordsOnFreshStore,
  withFields,
} from './test-support.ts';

const LIMIT = 3;

describe.each(dialectsUnderTest())('/v2 retention on %s', (dialect) => {
  let service: RecordsApp;

  beforeAll(async () => {
    service = await startRecordsOnFreshStore(dialect, 'v2-retention', {
      storeOptions: { maxEntriesPerKind: LIMIT },
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('keeps the newest STORE_MAX_ENTRIES records of a kind, oldest evicted first, other kinds untouched', async () => {
    const { app } = service;
    const objection = await post(app, '/v2/dispute/objection', example('objection_record'));
    expect(objection.statusCode).toBe(201);
    const ids = Array.from({ length: 5 }, (_, i) => `dispute:retention-${i}`);
    for (const id of ids) {
      const created = await post(
        app,
        '/v2/dispute/record',
        withFields(example('dispute_record'), { dispute_id: id }),
      );
      expect(created.statusCode).toBe(201);
    }
    const statuses = await Promise.all(
      ids.map(async (id) => (await get(app, `/v2/dispute/record/${id}`)).statusCode),
    );
    expect(statuses).toEqual([404, 404, 200, 200, 200]);
    expect((await get(app, '/v2/dispute/objection/objection:bulk-delete-0003')).statusCode).toBe(200);
  });

  it('never breaks the lifecycle state of a live agent whose records were evicted', async () => {
    const { app } = service;
    const agents = Array.from({ length: LIMIT + 2 }, (_, i) => `agent:retained-${i}`);
    for (const agentId of agents) {
      const cert = withFields(example('commissioning_certificate'), { agent_id: agentId });
      expect((await post(app, '/v2/lifecycle/commission', cert)).statusCode).toBe(201);
    }
    const oldest = agents[0]!;
    expect((await get(app, `/v2/lifecycle/commission/${oldest}`)).statusCode).toBe(404); // evicted record…
    const moved = await post(app, '/v2/lifecycle/transition', { agent_id: oldest, to_state: 'active' });
    expect(moved.statusCode).toBe(200); // …live agent
    expect(bodyOf(moved)).toMatchObject({ previous_state: 'commissioned', state: 'active' });

    // A new certificate cannot replace the evicted one: the agent is still commissioned.
    const replacement = withFields(example('commissioning_certificate'), {
      agent_id: oldest,
      purpose: 'New',
    });
    const refused = await post(app, '/v2/lifecycle/commission', replacement);
    expect(refused.statusCode).toBe(409);
    // Refused by the id's tombstone (issue 15) before the lifecycle check could answer.
    expect(errorOf(refused).details).toMatchObject({ id: oldest });

    // The vitality chain outlives its evicted reports.
    let prev = 'GENESIS';
    let last: Json = {};
    for (let i = 0; i < LIMIT + 3; i++) {
      last = sentRecord(
        service,
        '/v2/lifecycle/vitality',
        withFields(example('vitality_report'), {
          agent_id: oldest,
          vitality_score: 500 + i,
          prev_report_hash: prev,
        }),
      );
      const response = await post(app, '/v2/lifecycle/vitality', last);
      expect(response.statusCode, `report ${i}`).toBe(201);
      const { composite_sig: _sig, ...unsigned } = last;
      prev = sha256Of(unsigned);
    }
    const latest = await get(app, `/v2/lifecycle/vitality/${oldest}`);
    expect(bodyOf(latest)).toMatchObject({ record: last, report_hash: prev });

    const decommission = withFields(example('decommissioning_record'), {
      agent_id: oldest,
      timestamp: new Date().toISOString(),
    });
    const done = await post(app, '/v2/lifecycle/decommission', decommission);
    expect(done.statusCode).toBe(201);
  });
});

describe('/v2 records opened from the environment (DATA_DIR, STORE_MAX_ENTRIES)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'proto-records-env-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('opens <DATA_DIR>/verification.sqlite with STORE_MAX_ENTRIES and keeps the records across restarts', async () => {
    const env = { DATA_DIR: dataDir, STORE_MAX_ENTRIES: '2' };
    const first = await startRecordsApp({ recordsEnv: env });
    for (const id of ['mandate:env-1', 'mandate:env-2', 'mandate:env-3']) {
      const mandate = withFields(example('delegation_mandate'), { mandate_id: id });
      expect((await post(first.app, '/v2/delegation/mandate', mandate)).statusCode).toBe(201);
    }
    await first.close(); // closes the store it opened

    const second = await startRecordsApp({ recordsEnv: env });
    try {
      const statuses = await Promise.all(
        ['mandate:env-1', 'mandate:env-2', 'mandate:env-3'].map(
          async (id) => (await get(second.app, `/v2/delegation/mandate/${id}`)).statusCode,
        ),
      );
      expect(statuses).toEqual([404, 200, 200]);
      expect((await second.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('refuses a bad STORE_MAX_ENTRIES at boot with a configuration error naming it', async () => {
    await expect(
      startRecordsApp({ recordsEnv: { DATA_DIR: dataDir, STORE_MAX_ENTRIES: '0' } }),
    ).rejects.toThrow(ConfigError);
    await expect(
      startRecordsApp({ recordsEnv: { DATA_DIR: dataDir, STORE_MAX_ENTRIES: 'many' } }),
    ).rejects.toThrow(/STORE_MAX_ENTRIES/);
  });
});
