// P198 over HTTP against the real verification service with the /v2 records mounted, on every store dialect: a
// lifecycle move signed by the agent's own bound key, dated a day or an hour no calendar has (30 February,
// 31 April, 29 February of a common year, 24:00). The route's pattern took any two digits and Date.parse rolled
// them over (30 February read as 2 March), so the history stored, as a verified signed move, a time that the
// protocol's `date-time` (RFC 3339 §5.6–5.7, the schemas' full check) refuses and that readers place differently.
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

describe.each(dialectsUnderTest())('a lifecycle move dated a day no calendar has, on %s', (dialect) => {
  let service: VerifierWithRecords;
  let agent: Awaited<ReturnType<typeof commissionOwnAgent>>;
  const party = partyOf(buildSignedBundle());
  const agentId = party.agentId;
  const move = (fields: Json) => agent.move(fields);
  const state = () => agent.state();

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-transition-time');
    agent = await commissionOwnAgent(service, party);
  }, 120_000);
  afterAll(async () => {
    await service?.close();
  });

  it.each([
    ['30 February', '2026-02-30T09:00:00Z'],
    ['31 April', '2026-04-31T09:00:00Z'],
    ['29 February of a common year', '2025-02-29T09:00:00Z'],
    ['hour 24', '2026-01-01T24:00:00Z'],
    ['hour 24 in lower case', '2026-01-01t24:00:00z'],
    ['month 00', '2026-00-10T09:00:00Z'],
    ['day 00', '2026-03-00T09:00:00Z'],
  ])('P198: %s (%s) is 400 PROTO-E002 and the agent does not move', async (_what, timestamp) => {
    const refused = await move({ agent_id: agentId, to_state: 'active', timestamp });
    expect(refused.status, JSON.stringify(refused.json)).toBe(400);
    expect(refused.json).toMatchObject({ error: { code: 'PROTO-E002' } });
    expect(JSON.stringify(refused.json)).toContain('/timestamp');
    expect(await state()).toBe('commissioned');
  });

  it('P198: real days, the widest offsets and a leap second still move it, recorded as before', async () => {
    // 29 February of a leap year, an offset of 23:59, lower-case separators: RFC 3339 times, recorded as sent.
    const leapDay = await move({
      agent_id: agentId,
      to_state: 'active',
      timestamp: '2024-02-29T09:00:00-23:59',
    });
    expect(leapDay.status, JSON.stringify(leapDay.json)).toBe(200);
    expect(leapDay.json).toMatchObject({ state: 'active', timestamp: '2024-02-29T09:00:00-23:59' });
    // A leap second out of `active` is still read as the millisecond before it (P187).
    const leapSecond = await move({
      agent_id: agentId,
      to_state: 'declining',
      timestamp: '2016-12-31t23:59:60z',
    });
    expect(leapSecond.status, JSON.stringify(leapSecond.json)).toBe(200);
    expect(leapSecond.json).toMatchObject({ state: 'declining', timestamp: '2016-12-31T23:59:59.999Z' });
  });

  it("P221: every form of the schemas' date-time moves an agent, recorded as the UTC instant it names", async () => {
    // Was 400: the machine kept a reader of its own that took only `T` and `±HH:MM`.
    const otherParty = partyOf(buildSignedBundle());
    const other = await commissionOwnAgent(service, otherParty);
    const moves: [string, string, string][] = [
      ['active', '2026-01-01T05:00:00+05', '2026-01-01T00:00:00.000Z'],
      ['declining', '2026-01-01 05:30:00+0530', '2026-01-01T00:00:00.000Z'],
      ['decommissioned', '2026-01-01\t01:00:00-01', '2026-01-01T02:00:00.000Z'],
    ];
    for (const [to, timestamp, recorded] of moves) {
      const moved = await other.move({ agent_id: otherParty.agentId, to_state: to, timestamp });
      expect(moved.status, `${timestamp}: ${JSON.stringify(moved.json)}`).toBe(200);
      expect(moved.json).toMatchObject({ state: to, timestamp: recorded });
    }
    expect(await other.state()).toBe('decommissioned');
  });
});
