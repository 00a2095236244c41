// Lifecycle tests on every dialect: SPEC.md's machine, commissioning, decommissioning, the vitality chain,
// and atomic moves under parallel HTTP requests. Covers D16 (issue item 3).
import type { Store } from '@proto/store';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIFECYCLE_STATES, type LifecycleState } from './lifecycle-machine.ts';
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
  startRecordsOnFreshStore,
  withFields,
} from './test-support.ts';

const TRANSITION = '/v2/lifecycle/transition';

/** SPEC.md "Agent lifecycle": the four moves, written out independently of the implementation. */
const SPEC_MOVES = new Set([
  'commissioned>active',
  'active>declining',
  'active>decommissioned',
  'declining>decommissioned',
]);
/** Shortest way from `commissioned` to each state. */
const PATH_TO: Record<LifecycleState, LifecycleState[]> = {
  commissioned: [],
  active: ['active'],
  declining: ['active', 'declining'],
  decommissioned: ['active', 'decommissioned'],
};

/** PROTOCOL §9.2 note: `sha256:` + SHA-256(jcs(report without composite_sig)), computed independently. */
function reportHash(report: Json): string {
  const { composite_sig: _sig, ...unsigned } = report;
  return sha256Of(unsigned);
}

let agentCounter = 0;

describe.each(dialectsUnderTest())('/v2 lifecycle on %s', (dialect) => {
  let store: Store;
  let service: RecordsApp;

  beforeAll(async () => {
    service = await startRecordsOnFreshStore(dialect, 'v2-lifecycle', {
      listen: true,
      seed: async (opened) => {
        store = opened;
      },
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  const certificate = (agentId: string) =>
    withFields(example('commissioning_certificate'), { agent_id: agentId });

  async function agentIn(state: LifecycleState): Promise<string> {
    const agentId = `agent:${dialect}-${state}-${++agentCounter}`;
    const created = await post(service.app, '/v2/lifecycle/commission', certificate(agentId));
    expect(created.statusCode, created.body).toBe(201);
    for (const to of PATH_TO[state]) {
      const moved = await post(service.app, TRANSITION, { agent_id: agentId, to_state: to });
      expect(moved.statusCode, moved.body).toBe(200);
    }
    return agentId;
  }

  it('allows exactly the four moves of SPEC.md and answers 409 with the allowed moves otherwise', async () => {
    for (const from of LIFECYCLE_STATES) {
      for (const to of LIFECYCLE_STATES) {
        const agentId = await agentIn(from);
        const response = await post(service.app, TRANSITION, {
          agent_id: agentId,
          to_state: to,
          reason: 'test move',
          // Not before the agent's commissioning here (P207), and within the clock skew ahead (P203).
          timestamp: new Date(Date.now() + 60_000).toISOString(),
        });
        if (SPEC_MOVES.has(`${from}>${to}`)) {
          expect(response.statusCode, `${from} → ${to}`).toBe(200);
          expect(bodyOf(response)).toMatchObject({ agent_id: agentId, state: to, previous_state: from });
        } else {
          expect(response.statusCode, `${from} → ${to}`).toBe(409);
          const allowed = LIFECYCLE_STATES.filter((s) => SPEC_MOVES.has(`${from}>${s}`));
          expect(errorOf(response)).toMatchObject({
            code: 'CONFLICT',
            details: { current_state: from, requested_state: to, allowed_moves: allowed },
          });
        }
      }
    }
  });

  it('checks from_state against the current state (409) and knows no unknown agent (404)', async () => {
    const agentId = await agentIn('active');
    const mismatch = await post(service.app, TRANSITION, {
      agent_id: agentId,
      from_state: 'commissioned',
      to_state: 'active',
    });
    expect(mismatch.statusCode).toBe(409);
    expect(errorOf(mismatch).details).toMatchObject({
      current_state: 'active',
      from_state: 'commissioned',
      allowed_moves: ['declining', 'decommissioned'],
    });
    const matched = await post(service.app, TRANSITION, {
      agent_id: agentId,
      from_state: 'active',
      to_state: 'declining',
    });
    expect(bodyOf(matched)).toMatchObject({ state: 'declining', previous_state: 'active' });

    const unknown = await post(service.app, TRANSITION, { agent_id: 'agent:never-seen', to_state: 'active' });
    expect(unknown.statusCode).toBe(404);
    expect(errorOf(unknown).code).toBe('NOT_FOUND');
  });

  it('validates the transition body (400 with a code and paths)', async () => {
    const cases: [unknown, string][] = [
      [{ to_state: 'active' }, 'PROTO-E002'],
      [{ agent_id: 'agent:x-000001', to_state: 'retired' }, 'PROTO-E002'],
      [{ agent_id: 'agent:x-000001', to_state: 'active', timestamp: 'yesterday' }, 'PROTO-E002'],
      [{ agent_id: 'agent:x-000001', to_state: 'active', extra: 1 }, 'PROTO-E002'],
      [{ agent_id: 'agent x', to_state: 'active' }, 'PROTO-E002'], // P518: was INVALID_ID
    ];
    for (const [body, code] of cases) {
      const response = await post(service.app, TRANSITION, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorOf(response).code).toBe(code);
    }
    const bad = await post(service.app, TRANSITION, { agent_id: 'agent:x-000001', to_state: 'retired' });
    expect(errorOf(bad).details).toEqual([expect.objectContaining({ path: '/to_state' })]);
  });

  it('P187: reads a leap-second timestamp on the safe side of its move, over HTTP', async () => {
    // The transition as a client sends it: signed like every write, JSON over a real connection.
    const send = async (body: Json) => {
      const answer = await fetch(`${service.url}${TRANSITION}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(sentRecord(service, TRANSITION, body)),
      });
      return { status: answer.status, body: (await answer.json()) as Json };
    };
    // An agent this service has known since 2015 (its store written then): moves of 2015 and 2016 follow it (P207).
    const agentId = `agent:${dialect}-leap-${++agentCounter}`;
    expect(await store.lifecycle.commission(agentId, '2015-01-01T00:00:00Z')).toBe('created');
    const moves = [
      // Into `active`, a time before which the agent does not count: the leap second is the next midnight.
      { to_state: 'active', sent: '2015-06-30T23:59:60Z', recorded: '2015-07-01T00:00:00.000Z' },
      // Out of `active`, a time after which it stops counting: the last millisecond before the leap second.
      { to_state: 'decommissioned', sent: '2016-12-31T23:59:60.5Z', recorded: '2016-12-31T23:59:59.999Z' },
    ];
    for (const move of moves) {
      const moved = await send({ agent_id: agentId, to_state: move.to_state, timestamp: move.sent });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect(moved.body).toMatchObject({ state: move.to_state, timestamp: move.recorded });
    }
    const recorded = (await store.lifecycle.history(agentId)).map((entry) => [entry.to_state, entry.at]);
    expect(recorded.slice(1)).toEqual([
      ['active', '2015-07-01T00:00:00.000Z'],
      ['decommissioned', '2016-12-31T23:59:59.999Z'],
    ]);
    // `:60` anywhere but the last minute of a UTC day is no leap second, and nothing moves.
    const other = await agentIn('commissioned');
    const noLeap = await send({ agent_id: other, to_state: 'active', timestamp: '2016-12-31T12:30:60Z' });
    expect(noLeap.status).toBe(400);
    expect(noLeap.body).toMatchObject({ error: { code: 'PROTO-E002' } });
    expect((await store.lifecycle.get(other))?.state).toBe('commissioned');
  });

  it('commissions once: the same certificate again is 200, another certificate for the agent is 409', async () => {
    const agentId = await agentIn('active');
    const same = await post(service.app, '/v2/lifecycle/commission', certificate(agentId));
    expect(same.statusCode).toBe(200);
    expect(bodyOf(same)).toMatchObject({ id: agentId, state: 'active' });
    const other = withFields(certificate(agentId), { purpose: 'Something else entirely' });
    const refused = await post(service.app, '/v2/lifecycle/commission', other);
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).message).toContain('different certificate');
    const fetched = await get(service.app, `/v2/lifecycle/commission/${agentId}`);
    expect(bodyOf(fetched)).toMatchObject({
      record: sentRecord(service, '/v2/lifecycle/commission', certificate(agentId)),
      state: 'active',
    });
  });

  it('makes a decommissioning record a move that obeys the machine, stored only when the move happens', async () => {
    const record = (agentId: string) =>
      withFields(example('decommissioning_record'), {
        agent_id: agentId,
        timestamp: new Date().toISOString(),
      });

    const unknown = await post(service.app, '/v2/lifecycle/decommission', record('agent:ghost-000001'));
    expect(unknown.statusCode).toBe(404);

    const fresh = await agentIn('commissioned');
    const early = await post(service.app, '/v2/lifecycle/decommission', record(fresh));
    expect(early.statusCode).toBe(409);
    expect(errorOf(early).details).toMatchObject({
      current_state: 'commissioned',
      allowed_moves: ['active'],
    });
    expect((await get(service.app, `/v2/lifecycle/decommission/${fresh}`)).statusCode).toBe(404);

    for (const state of ['active', 'declining'] as const) {
      const agentId = await agentIn(state);
      const decommissioning = record(agentId);
      const done = await post(service.app, '/v2/lifecycle/decommission', decommissioning);
      expect(done.statusCode, state).toBe(201);
      expect(bodyOf(done)).toMatchObject({ id: agentId, state: 'decommissioned' });
      expect((await post(service.app, '/v2/lifecycle/decommission', decommissioning)).statusCode).toBe(200);
      const after = await post(service.app, TRANSITION, { agent_id: agentId, to_state: 'active' });
      expect(errorOf(after).details).toMatchObject({ current_state: 'decommissioned', allowed_moves: [] });
      expect(bodyOf(await get(service.app, `/v2/lifecycle/commission/${agentId}`))['state']).toBe(
        'decommissioned',
      );
    }
  });

  it('chains vitality reports from GENESIS by hash and answers the latest', async () => {
    const agentId = await agentIn('active');
    const signed = (record: Json) => sentRecord(service, '/v2/lifecycle/vitality', record);
    const first = signed(withFields(example('vitality_report'), { agent_id: agentId }));
    const created = await post(service.app, '/v2/lifecycle/vitality', first);
    expect(created.statusCode).toBe(201);
    expect(bodyOf(created)).toMatchObject({ id: agentId, report_hash: reportHash(first) });

    const second = signed(
      withFields(first, {
        timestamp: '2026-05-02T08:00:00Z',
        vitality_score: 880,
        prev_report_hash: reportHash(first),
      }),
    );
    expect((await post(service.app, '/v2/lifecycle/vitality', second)).statusCode).toBe(201);

    const forked = withFields(second, { vitality_score: 10 }); // names the first report again
    const refused = await post(service.app, '/v2/lifecycle/vitality', forked);
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).details).toMatchObject({ expected_prev_report_hash: reportHash(second) });
    const restart = withFields(first, { timestamp: '2026-05-03T08:00:00Z' }); // GENESIS again
    expect((await post(service.app, '/v2/lifecycle/vitality', restart)).statusCode).toBe(409);

    const latest = await get(service.app, `/v2/lifecycle/vitality/${agentId}`);
    expect(bodyOf(latest)).toMatchObject({ id: agentId, record: second, report_hash: reportHash(second) });

    // Re-posting a stored report is idempotent; the same report with another signature is a conflict.
    expect((await post(service.app, '/v2/lifecycle/vitality', { vitality_report: first })).statusCode).toBe(
      200,
    );
    const resigned = withFields(first, {
      composite_sig: { ...(first['composite_sig'] as Json), binding: 'classical_only', pq: null },
    });
    // Sent as it is (`post` would sign it again): its classical half is still a valid signature.
    const resent = await service.app.inject({
      method: 'POST',
      url: '/v2/lifecycle/vitality',
      payload: resigned,
    });
    expect(resent.statusCode, resent.body).toBe(409);

    const unknown = withFields(first, { agent_id: 'agent:nobody-000001' });
    expect((await post(service.app, '/v2/lifecycle/vitality', unknown)).statusCode).toBe(404);
    expect((await get(service.app, '/v2/lifecycle/vitality/agent:nobody-000001')).statusCode).toBe(404);
  });

  it('lets exactly one of many concurrent conflicting moves win (parallel HTTP requests)', async () => {
    const agents = await Promise.all([agentIn('active'), agentIn('active'), agentIn('active')]);
    const send = (body: Json) =>
      fetch(`${service.url}${TRANSITION}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(sentRecord(service, TRANSITION, body)),
      });
    for (const [i, agentId] of agents.entries()) {
      // Agent 0: both targets, with from_state. Agents 1 and 2: one target each, without from_state.
      // (Without from_state, active → declining then declining → decommissioned would both be legal.)
      const bodies = Array.from({ length: 16 }, (_, n) => ({
        agent_id: agentId,
        to_state: i === 1 || (i === 0 && n % 2 === 0) ? 'declining' : 'decommissioned',
        ...(i === 0 ? { from_state: 'active' } : {}),
      }));
      const responses = await Promise.all(bodies.map(send));
      const statuses = responses.map((r) => r.status);
      expect(
        statuses.filter((s) => s === 200),
        `agent ${i}: ${statuses}`,
      ).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(15);
      const winner = (await responses[statuses.indexOf(200)]!.json()) as Json;
      // The state the winner reported is the state a follow-up move sees.
      const probe = await post(service.app, TRANSITION, { agent_id: agentId, to_state: 'commissioned' });
      expect(errorOf(probe).details).toMatchObject({ current_state: winner['state'] });
    }
  });

  it('stores exactly one of concurrent decommissioning records and one of concurrent chain links', async () => {
    const agentId = await agentIn('active');
    const records = Array.from({ length: 8 }, (_, n) =>
      sentRecord(
        service,
        '/v2/lifecycle/decommission',
        withFields(example('decommissioning_record'), {
          agent_id: agentId,
          reason: `reason number ${n}`,
          timestamp: new Date().toISOString(),
        }),
      ),
    );
    const vitality = Array.from({ length: 8 }, (_, n) =>
      sentRecord(
        service,
        '/v2/lifecycle/vitality',
        // P379: stating `decommissioned`, so a report after the winning decommissioning is judged by the chain only.
        withFields(example('vitality_report'), {
          agent_id: agentId,
          vitality_score: 100 + n,
          state: 'decommissioned',
        }),
      ),
    );
    const send = (path: string, body: Json) =>
      fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.status);
    const [decommissions, reports] = await Promise.all([
      Promise.all(records.map((r) => send('/v2/lifecycle/decommission', r))),
      Promise.all(vitality.map((r) => send('/v2/lifecycle/vitality', r))),
    ]);
    expect(
      decommissions.filter((s) => s === 201),
      String(decommissions),
    ).toHaveLength(1);
    expect(decommissions.filter((s) => s === 409)).toHaveLength(7);
    expect(
      reports.filter((s) => s === 201),
      String(reports),
    ).toHaveLength(1);
    expect(reports.filter((s) => s === 409)).toHaveLength(7);
    const stored = bodyOf(await get(service.app, `/v2/lifecycle/decommission/${agentId}`));
    expect(records).toContainEqual(stored['record']);
  });
});
