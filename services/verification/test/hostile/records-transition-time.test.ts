// P198 over HTTP against the real verification service with the /v2 records mounted, on every store dialect: a
// lifecycle move signed by the agent's own bound key, dated a day or an hour no calendar has (30 February,
// 31 April, 29 February of a common year, 24:00). The route's pattern took any two digits and Date.parse rolled
// them over (30 February read as 2 March), so the history stored, as a verified signed move, a time that the
// protocol's `date-time` (RFC 3339 §5.6–5.7, the schemas' full check) refuses and that readers place differently.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import {
  commissionOwnAgent,
  partyOf,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const backend = createNativeBackend();
const TRANSITION = '/v2/lifecycle/transition';

describe.each(dialectsUnderTest())('a lifecycle move dated a day no calendar has, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const party = partyOf(buildSignedBundle());
  const agentId = party.agentId;
  const move = (fields: Json) =>
    service.post(
      TRANSITION,
      signRecord(backend, PROFILES.proto, 'lifecycle_transition', fields, party.agentKeys),
    );
  const state = async () => {
    const res = await fetch(`${service.url}/v2/lifecycle/commission/${agentId}`);
    return ((await res.json()) as Json)['state'];
  };

  beforeAll(async () => {
    // The agent was commissioned here in 2015 (the store as the service then left it): the dated moves below follow
    // its commissioning, as P207 requires of every move.
    const certificate = signRecord(
      backend,
      PROFILES.proto,
      'commissioning_certificate',
      withFields(example('commissioning_certificate'), {
        agent_id: agentId,
        human_id: party.humanId,
        timestamp: '2015-01-01T00:00:00Z',
      }),
      party.agentKeys,
    );
    service = await startVerifierWithRecords(dialect, 'v2-transition-time', {}, async (store) => {
      await store.records.put('commissioning_certificate', agentId, certificate, { agentId });
      expect(await store.lifecycle.commission(agentId, '2015-01-01T00:00:00Z')).toBe('created');
    });
    // The agent's own bundle binds its key; its moves are then verified writes.
    expect(
      (await service.post('/verify', { signed_bundle: party.built.signed_bundle })).json['verified'],
    ).toBe(true);
    expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
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
      timestamp: '2016-02-29T09:00:00-23:59',
    });
    expect(leapDay.status, JSON.stringify(leapDay.json)).toBe(200);
    expect(leapDay.json).toMatchObject({ state: 'active', timestamp: '2016-02-29T09:00:00-23:59' });
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
    // Was 400: the machine kept a reader of its own that took only `T` and `±HH:MM`. The agent is commissioned now,
    // so its moves are dated in the next minutes (after its commissioning, P207; within the skew ahead, P203).
    const otherParty = partyOf(buildSignedBundle());
    const other = await commissionOwnAgent(service, otherParty);
    const base = Math.ceil((Date.now() + 60_000) / 60_000) * 60_000;
    const written = (at: number, offsetMinutes: number, separator: string, offset: string) => {
      const local = new Date(at + offsetMinutes * 60_000).toISOString();
      return `${local.slice(0, 10)}${separator}${local.slice(11, 19)}${offset}`;
    };
    const moves: [string, string, string][] = [
      ['active', written(base, 300, 'T', '+05'), new Date(base).toISOString()],
      ['declining', written(base + 60_000, 330, ' ', '+0530'), new Date(base + 60_000).toISOString()],
      ['decommissioned', written(base + 120_000, -60, '\t', '-01'), new Date(base + 120_000).toISOString()],
    ];
    for (const [to, timestamp, recorded] of moves) {
      const moved = await other.move({ agent_id: otherParty.agentId, to_state: to, timestamp });
      expect(moved.status, `${timestamp}: ${JSON.stringify(moved.json)}`).toBe(200);
      expect(moved.json).toMatchObject({ state: to, timestamp: recorded });
    }
    expect(await other.state()).toBe('decommissioned');
  });
});
