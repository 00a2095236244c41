// Route tests of the /v2 records on every dialect: bodies, ids, idempotency, conflicts, 404s, docs, restart.
// Covers D14 (bodies, ids, 200/201/409/404), D15 (float rejected), issue items 2, 6, 7 and 8.
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_ROUTES, type RecordRoute } from './kinds.ts';
import {
  bodyOf,
  dateDecommissioningNow,
  errorOf,
  example,
  get,
  inRouteOrder,
  type Json,
  post,
  type RecordsApp,
  sentRecord,
  sha256Of,
  startRecordsApp,
  startRecordsOnFreshStore,
  upstreamExample,
  withFields,
} from './test-support.ts';

/** The id a record answers under, computed here independently of the service (D14). */
function expectedId(route: RecordRoute, record: Json): string {
  switch (route.id.type) {
    case 'field':
      return record[route.id.field] as string;
    case 'content':
      return sha256Of(record);
    default:
      return record['agent_id'] as string;
  }
}

const getPath = (route: RecordRoute, id: string) => `${route.path}/${encodeURIComponent(id)}`;

describe.each(dialectsUnderTest())('/v2 records on %s', (dialect) => {
  let service: RecordsApp;

  beforeAll(async () => {
    service = await startRecordsOnFreshStore(dialect, 'v2-records', { docs: true });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('stores every kind (plain body, 201), answers GET, and an identical wrapped re-post is 200 with the same id', async () => {
    const { app } = service;
    for (const route of RECORD_ROUTES) {
      // Signed by a key bound to its subjects (the default policy), as `post` sends it.
      if (route.kind === 'decommissioning_record') {
        // D16: decommissioning is a move and needs an active agent.
        const moved = await post(app, '/v2/lifecycle/transition', {
          agent_id: example(route.kind)['agent_id'],
          to_state: 'active',
        });
        expect(moved.statusCode, moved.body).toBe(200);
      }
      const record = sentRecord(service, route.path, inRouteOrder(route.kind, example(route.kind)));
      const created = await post(app, route.path, record);
      expect(created.statusCode, `${route.path}: ${created.body}`).toBe(201);
      const answer = bodyOf(created);
      const id = expectedId(route, record);
      expect(answer).toMatchObject({ id, kind: route.kind, record });
      expect(Date.parse(answer['stored_at'] as string)).not.toBeNaN();

      const fetched = await get(app, getPath(route, id));
      expect(fetched.statusCode, `${route.path} GET`).toBe(200);
      expect(bodyOf(fetched)).toMatchObject({ id, kind: route.kind, stored_at: answer['stored_at'], record });

      const again = await post(app, route.path, { [route.wrapperKeys[0]!]: record });
      expect(again.statusCode, `${route.path} re-post`).toBe(200);
      expect(bodyOf(again)).toMatchObject({ id, kind: route.kind, stored_at: answer['stored_at'] });
    }
  });

  it('answers 409 for a different record under a stored natural id, and stores it nowhere', async () => {
    const { app } = service;
    for (const route of RECORD_ROUTES.filter((r) => r.id.type === 'field' || r.id.type === 'agent')) {
      // What the first test stored under this id (a decommissioning record dated then, P238).
      const path = getPath(route, expectedId(route, example(route.kind)));
      const record = bodyOf(await get(app, path))['record'] as Json;
      const changed = withFields(record, { timestamp: '2020-01-01T00:00:00Z' });
      const refused = await post(app, route.path, changed);
      expect(refused.statusCode, `${route.path}: ${refused.body}`).toBe(409);
      expect(errorOf(refused).code).toBe('CONFLICT');
      const stored = await get(app, path);
      expect(bodyOf(stored)['record']).toEqual(record);
    }
  });

  it('gives a changed record of a content-id kind its own id', async () => {
    const route = RECORD_ROUTES.find((r) => r.kind === 'memory_transfer_manifest')!;
    const changed = sentRecord(
      service,
      route.path,
      withFields(example(route.kind), { timestamp: '2026-06-16T09:30:00Z' }),
    );
    const created = await post(service.app, route.path, changed);
    expect(created.statusCode).toBe(201);
    expect(bodyOf(created)['id']).toBe(expectedId(route, changed));
    expect(bodyOf(created)['id']).not.toBe(
      expectedId(route, sentRecord(service, route.path, example(route.kind))),
    );
  });

  it('answers 404 with a code for an unknown id on every GET route', async () => {
    for (const route of RECORD_ROUTES) {
      const response = await get(service.app, `${route.path}/agent:nobody-here`);
      expect(response.statusCode, route.path).toBe(404);
      expect(errorOf(response).code).toBe('NOT_FOUND');
    }
  });

  it('refuses path ids outside ^[\\w:.\\-]{1,256}$ with 400 INVALID_ID', async () => {
    for (const id of ['bad%20id', 'x'.repeat(257), '%3Cscript%3E', 'a%2Fb', 'caf%C3%A9']) {
      for (const route of RECORD_ROUTES) {
        const response = await get(service.app, `${route.path}/${id}`);
        expect(response.statusCode, `${route.path}/${id}`).toBe(400);
        expect(errorOf(response).code).toBe('INVALID_ID');
      }
    }
    // Ids up to 256 characters work end to end (the router alone would stop at 100).
    const longId = `dispute:${'x'.repeat(248)}`;
    const long = withFields(example('dispute_record'), { dispute_id: longId });
    expect((await post(service.app, '/v2/dispute/record', long)).statusCode).toBe(201);
    const fetched = await get(service.app, `/v2/dispute/record/${longId}`);
    expect(fetched.statusCode).toBe(200);
    expect(bodyOf(fetched)['id']).toBe(longId);
    expect((await get(service.app, `/v2/dispute/record/${'y'.repeat(256)}`)).statusCode).toBe(404);
  });

  it('refuses a record whose own id breaks the pattern with 400 E002, reason INVALID_ID (P518)', async () => {
    const dispute = withFields(example('dispute_record'), { dispute_id: 'dispute:<script>' });
    const response = await post(service.app, '/v2/dispute/record', dispute);
    expect(response.statusCode).toBe(400);
    expect(errorOf(response)).toMatchObject({
      code: 'PROTO-E002',
      retryable: false,
      details: [{ path: '/dispute_id', reason: 'INVALID_ID', field: 'dispute_id' }], // P563: E002's list
    });
    expect(errorOf(response).message).toContain('dispute_id');

    const cert = withFields(example('commissioning_certificate'), { agent_id: `agent:${'a'.repeat(300)}` });
    const refused = await post(service.app, '/v2/lifecycle/commission', cert);
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused).code).toBe('PROTO-E002');
  });

  it('answers a schema failure with 400 PROTO-E002 and the issue paths', async () => {
    const { dispute_type: _type, ...missing } = example('dispute_record');
    const bad = { ...missing, dispute_id: 'dispute:schema-0001', status: 'pending', extra: true };
    const response = await post(service.app, '/v2/dispute/record', bad);
    expect(response.statusCode).toBe(400);
    const error = errorOf(response);
    expect(error.code).toBe('PROTO-E002');
    const paths = (error.details as { path: string }[]).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['', '/status']));
    expect(error.message).toContain("'dispute_type'");
    expect(error.message).toContain("'extra'");

    // Wrapped: paths point into the body as sent.
    const wrapped = await post(service.app, '/v2/dispute/record', { dispute_record: bad });
    expect((errorOf(wrapped).details as { path: string }[]).map((d) => d.path)).toContain(
      '/dispute_record/status',
    );
  });

  it('refuses bodies that are not a record object', async () => {
    for (const body of [[1, 2], 'text', { dispute_record: 'x' }, { dispute_record: [] }]) {
      const response = await service.app.inject({
        method: 'POST',
        url: '/v2/dispute/record',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorOf(response).code).toBe('PROTO-E002');
    }
    const empty = await service.app.inject({ method: 'POST', url: '/v2/dispute/record' });
    expect(empty.statusCode).toBe(400);
    const malformed = await service.app.inject({
      method: 'POST',
      url: '/v2/dispute/record',
      headers: { 'content-type': 'application/json' },
      payload: '{"dispute_id":',
    });
    expect(malformed.statusCode).toBe(400);
    expect(errorOf(malformed).code).toMatch(/^PROTO-E00/);
  });

  it('refuses a float (D15) with 400 PROTO-E002 citing dcp-jcs-v1 and the paths', async () => {
    const report = withFields(example('vitality_report'), {
      agent_id: 'agent:float-check-01',
      metrics: { task_completion_rate: 0.96, error_rate: 12, human_satisfaction: 880, policy_alignment: 0.5 },
    });
    const response = await post(service.app, '/v2/lifecycle/vitality', report);
    expect(response.statusCode).toBe(400);
    const error = errorOf(response);
    expect(error.code).toBe('PROTO-E002');
    expect(error.message).toContain('dcp-jcs-v1');
    expect(error.message).toContain('integers');
    expect(error.details).toEqual([
      expect.objectContaining({ path: '/metrics/task_completion_rate' }),
      expect.objectContaining({ path: '/metrics/policy_alignment' }),
    ]);
  });

  it('accepts the upstream examples wrapped and plain, except those D15 rejects for a float', async (context) => {
    if (upstreamExample('dispute_record') === undefined) context.skip();
    const { app } = service;
    const floats: Record<string, string> = {
      vitality_report: '/metrics/',
      awareness_threshold: '/threshold_rules/1/value',
    };
    for (const route of RECORD_ROUTES) {
      if (route.kind === 'decommissioning_record') {
        const moved = await post(app, '/v2/lifecycle/transition', {
          agent_id: upstreamExample(route.kind)!['agent_id'],
          to_state: 'active',
        });
        expect(moved.statusCode, moved.body).toBe(200);
      }
      const record = sentRecord(
        service,
        route.path,
        dateDecommissioningNow(route.kind, upstreamExample(route.kind)!),
      );
      if (route.kind === 'succession_record') {
        // P513: upstream's testament of this agent says human_consent_required and its succession record has
        // human_consent null: the two examples contradict each other, and the record is refused.
        const refused = await post(app, route.path, record);
        expect(refused.statusCode, refused.body).toBe(409);
        expect(errorOf(refused).details).toMatchObject({ reason: 'human_consent_required' });
        continue;
      }
      for (const [i, wrapperKey] of route.wrapperKeys.entries()) {
        const wrapped = await post(app, route.path, { [wrapperKey]: record });
        const plain = await post(app, route.path, record);
        const expected = floats[route.kind];
        if (expected !== undefined) {
          for (const response of [wrapped, plain]) {
            expect(response.statusCode, route.path).toBe(400);
            expect(errorOf(response).message).toMatch(/dcp-jcs-v1.*integers/);
            expect(JSON.stringify(errorOf(response).details)).toContain(expected);
          }
          continue;
        }
        expect(wrapped.statusCode, `${route.path} ${wrapperKey}: ${wrapped.body}`).toBe(i === 0 ? 201 : 200);
        expect(plain.statusCode, `${route.path} plain`).toBe(200);
        expect(bodyOf(plain)['id']).toBe(expectedId(route, record));
      }
    }
  });

  it('keeps every version of a testament and answers the latest', async () => {
    const { app } = service;
    const agent = 'agent:testament-owner-01';
    const path = '/v2/succession/testament';
    const v2 = sentRecord(
      service,
      path,
      withFields(example('digital_testament'), { agent_id: agent, testament_version: 2 }),
    );
    const v3 = sentRecord(
      service,
      path,
      withFields(v2, { testament_version: 3, last_updated: '2026-07-01T09:00:00Z' }),
    );
    expect((await post(app, '/v2/succession/testament', v2)).statusCode).toBe(201);
    expect((await post(app, '/v2/succession/testament', v3)).statusCode).toBe(201);

    const latest = await get(app, `/v2/succession/testament/${agent}`);
    expect(bodyOf(latest)).toMatchObject({ id: agent, kind: 'digital_testament', record: v3 });
    const second = await get(app, `/v2/succession/testament/${agent}?version=2`);
    expect(bodyOf(second)['record']).toEqual(v2);
    expect((await get(app, `/v2/succession/testament/${agent}?version=9`)).statusCode).toBe(404);
    expect((await get(app, `/v2/succession/testament/${agent}?version=x`)).statusCode).toBe(400);

    expect((await post(app, '/v2/succession/testament', v2)).statusCode).toBe(200); // idempotent
    const stale = await post(app, '/v2/succession/testament', withFields(v2, { testament_version: 1 }));
    expect(stale.statusCode).toBe(409);
    expect(errorOf(stale).message).toContain('stale');
    const rewritten = await post(
      app,
      '/v2/succession/testament',
      withFields(v3, { human_consent_required: false }),
    );
    expect(rewritten.statusCode).toBe(409);
  });

  it('documents the 37 routes in OpenAPI, saying how writes are authorised', async () => {
    const response = await get(service.app, '/docs/json');
    expect(response.statusCode).toBe(200);
    const paths = (response.json() as { paths: Record<string, Record<string, Json>> }).paths;
    const operations = Object.entries(paths)
      .filter(([path]) => path.startsWith('/v2/') && !path.startsWith('/v2/keys/'))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
    expect(operations).toHaveLength(37);
    for (const { path, method, op } of operations) {
      expect(op['summary'], `${method} ${path}`).toEqual(expect.any(String));
      if (method === 'post' && path !== '/v2/lifecycle/transition') {
        expect(op['description']).toContain('RECORDS_WRITE_POLICY=signed');
        expect(JSON.stringify(op['requestBody'])).toContain('#/components/schemas/');
      }
    }
  });
});

describe.each(dialectsUnderTest())('/v2 records survive a restart on %s', (dialect) => {
  let target: StoreTarget;
  afterAll(async () => {
    await target?.cleanup();
  });

  it('keeps every record and every lifecycle state after the service and its store are reopened', async () => {
    target = await createStoreTarget(dialect, 'v2-restart');
    const firstStore = await target.open();
    const first = await startRecordsApp({ store: firstStore });
    const stored: [RecordRoute, string, unknown, Json][] = [];
    for (const route of RECORD_ROUTES) {
      if (route.kind === 'decommissioning_record') {
        await post(first.app, '/v2/lifecycle/transition', {
          agent_id: example(route.kind)['agent_id'],
          to_state: 'active',
        });
      }
      const record = sentRecord(first, route.path, inRouteOrder(route.kind, example(route.kind)));
      const response = await post(first.app, route.path, record);
      expect(response.statusCode, route.path).toBe(201);
      stored.push([route, bodyOf(response)['id'] as string, bodyOf(response)['stored_at'], record]);
    }
    const survivor = 'agent:restart-survivor';
    const cert = withFields(example('commissioning_certificate'), { agent_id: survivor });
    expect((await post(first.app, '/v2/lifecycle/commission', cert)).statusCode).toBe(201);
    const moved = await post(first.app, '/v2/lifecycle/transition', {
      agent_id: survivor,
      to_state: 'active',
    });
    expect(moved.statusCode).toBe(200);
    await first.close();
    await firstStore.close();

    const second = await startRecordsApp({ store: await target.open() });
    try {
      for (const [route, id, storedAt, record] of stored) {
        const response = await get(second.app, getPath(route, id));
        expect(response.statusCode, route.path).toBe(200);
        expect(bodyOf(response)).toMatchObject({ id, stored_at: storedAt, record });
      }
      // State kept: active → declining is allowed, active → active (already moved) is not.
      const again = await post(second.app, '/v2/lifecycle/transition', {
        agent_id: survivor,
        from_state: 'commissioned',
        to_state: 'active',
      });
      expect(again.statusCode).toBe(409);
      expect(errorOf(again).details).toMatchObject({ current_state: 'active' });
      const decommissioned = await post(second.app, '/v2/lifecycle/transition', {
        agent_id: 'agent:ledger-helper-01',
        to_state: 'active',
      });
      expect(errorOf(decommissioned).details).toMatchObject({
        current_state: 'decommissioned',
        allowed_moves: [],
      });
      // The vitality chain continues from the stored report (the agent is decommissioned: its report says so, P379).
      const latest = bodyOf(await get(second.app, '/v2/lifecycle/vitality/agent:ledger-helper-01'));
      const next = withFields(example('vitality_report'), {
        timestamp: '2026-05-02T08:00:00Z',
        prev_report_hash: latest['report_hash'],
        state: 'decommissioned',
      });
      const chained = await post(second.app, '/v2/lifecycle/vitality', next);
      expect(chained.statusCode, chained.body).toBe(201);
      const stale = await post(second.app, '/v2/lifecycle/vitality', withFields(next, { vitality_score: 1 }));
      expect(stale.statusCode).toBe(409);
    } finally {
      await second.close();
    }
  });
});
