// P203 over HTTP against the real verification service with the /v2 records mounted, on every store dialect: a
// lifecycle move signed by the agent's own bound key and dated far ahead of the clock (2999) was stored as sent, so
// the history held a signed move that had not happened yet: a decommissioning dated ahead keeps the agent counting
// in every reader's view until then. A move now dated beyond the clock skew (5 minutes, as revocations and passports
// are judged) is refused.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();
const TRANSITION = '/v2/lifecycle/transition';

describe.each(dialectsUnderTest())('a lifecycle move dated ahead of the clock, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const built = buildSignedBundle();
  const bundle = built.signed_bundle['bundle'] as Json;
  const agentId = ((bundle['agent_passport'] as Json)['payload'] as Json)['agent_id'] as string;
  const humanId = ((bundle['responsible_principal_record'] as Json)['payload'] as Json)['human_id'] as string;
  const agentKeys = {
    classical: built.keys.agent.classical,
    ...(built.keys.agent.pq === undefined ? {} : { pq: built.keys.agent.pq }),
  };
  const move = (fields: Json) =>
    service.post(TRANSITION, signRecord(backend, PROFILES.proto, 'lifecycle_transition', fields, agentKeys));
  const state = async () => {
    const res = await fetch(`${service.url}/v2/lifecycle/commission/${agentId}`);
    return ((await res.json()) as Json)['state'];
  };
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 300);

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-transition-clock');
    expect((await service.post('/verify', { signed_bundle: built.signed_bundle })).json['verified']).toBe(
      true,
    );
    expect(await service.keyStatusOnce(agentKeys.classical.kid, 200)).toBe(200);
    const certificate = signRecord(
      backend,
      PROFILES.proto,
      'commissioning_certificate',
      withFields(example('commissioning_certificate'), { agent_id: agentId, human_id: humanId }),
      agentKeys,
    );
    expect((await service.post('/v2/lifecycle/commission', certificate)).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await service?.close();
  });

  const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

  it.each([
    ['the year 2999', () => '2999-01-01T00:00:00Z'],
    ['an hour ahead', () => inMinutes(60)],
    ['six minutes ahead', () => inMinutes(6)],
  ])('P203: a move dated %s is 400 PROTO-E002 and the agent does not move', async (_what, at) => {
    const refused = await move({ agent_id: agentId, to_state: 'active', timestamp: at() });
    expect(refused.status, shown(refused)).toBe(400);
    expect(refused.json).toMatchObject({ error: { code: 'PROTO-E002' } });
    expect(JSON.stringify(refused.json)).toContain('/timestamp');
    expect(await state()).toBe('commissioned');
  });

  it('P203: a move dated within the clock skew ahead is stored as sent', async () => {
    const soon = inMinutes(2);
    const active = await move({ agent_id: agentId, to_state: 'active', timestamp: soon });
    expect(active.status, shown(active)).toBe(200);
    expect(active.json).toMatchObject({ state: 'active', timestamp: soon });
    // A past time is the signer's statement, but never before the agent's latest move (P207,
    // records-record-clock.test.ts): the next move follows this one.
    const declining = await move({ agent_id: agentId, to_state: 'declining', timestamp: inMinutes(3) });
    expect(declining.status, shown(declining)).toBe(200);
    expect(declining.json).toMatchObject({ state: 'declining' });
  });
});
