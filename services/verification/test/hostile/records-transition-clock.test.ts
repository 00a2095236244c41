// P203 over HTTP against the real verification service with the /v2 records mounted, on every store dialect: a
// lifecycle move signed by the agent's own bound key and dated far ahead of the clock (2999) was stored as sent, so
// the history held a signed move that had not happened yet: a decommissioning dated ahead keeps the agent counting
// in every reader's view until then. A move now dated beyond the clock skew (5 minutes, as revocations and passports
// are judged) is refused.
import { buildSignedBundle } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../src/records/test-support.ts';
import {
  commissionOwnAgent,
  partyOf,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

describe.each(dialectsUnderTest())('a lifecycle move dated ahead of the clock, on %s', (dialect) => {
  let service: VerifierWithRecords;
  let agent: Awaited<ReturnType<typeof commissionOwnAgent>>;
  const move = (fields: Json) => agent.move(fields);
  const state = () => agent.state();
  const party = partyOf(buildSignedBundle());
  const agentId = party.agentId;
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 300);

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-transition-clock');
    agent = await commissionOwnAgent(service, party);
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
