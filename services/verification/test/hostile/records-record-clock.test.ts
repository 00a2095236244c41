// P207 over HTTP against the real verification service with the /v2 records mounted, on every store dialect. An agent
// holding its own verified bundle (its keys bound here) signs its own records:
// - a lifecycle move dated before the agent's latest stored move, or before its commissioning here, was stored as
//   sent, so the history ran backwards and a backdated move into `active` made the agent count from before the
//   service knew it (P203's open gap);
// - every other record kind's own time (`timestamp`; a testament's `created_at` and `last_updated`) had no bound at
//   all, so a record dated 2999 was stored as a verified statement of something that had not happened.
import { buildSignedBundle, createNativeBackend, PROFILES, signRecord } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_ROUTES } from '../../src/records/kinds.ts';
import { example, type Json, withFields } from '../../src/records/test-support.ts';
import { partyOf, startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

const backend = createNativeBackend();
const TRANSITION = '/v2/lifecycle/transition';

/** The members a record names an agent or a human by, set to the attacker's own ids. */
const AGENT_FIELDS = ['agent_id', 'initiator_agent_id', 'predecessor_agent_id'];
const HUMAN_FIELDS = ['human_id'];
/** A record kind's own time: `timestamp`, or a testament's two dates (PROTOCOL §10.2). */
const timeFieldsOf = (kind: string) =>
  kind === 'digital_testament' ? ['created_at', 'last_updated'] : ['timestamp'];

describe.each(dialectsUnderTest())('records dated against the clock or the history, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const attacker = partyOf(buildSignedBundle());
  const shown = (answer: { json: Json }) => JSON.stringify(answer.json).slice(0, 400);
  const sign = (kind: string, record: Json) =>
    signRecord(backend, PROFILES.proto, kind, record, attacker.agentKeys);
  const move = (fields: Json) => service.post(TRANSITION, sign('lifecycle_transition', fields));
  const stateOf = async (agentId: string) => {
    const res = await fetch(`${service.url}/v2/lifecycle/commission/${agentId}`);
    return ((await res.json()) as Json)['state'];
  };
  const ownRecord = (kind: string, fields: Json) => {
    const record = example(kind);
    const own: Json = {};
    for (const field of AGENT_FIELDS) if (field in record) own[field] = attacker.agentId;
    for (const field of HUMAN_FIELDS) if (field in record) own[field] = attacker.humanId;
    return withFields(record, { ...own, ...fields });
  };

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'v2-record-clock');
    const verified = await service.post('/verify', { signed_bundle: attacker.built.signed_bundle });
    expect(verified.json['verified']).toBe(true);
    expect(await service.keyStatusOnce(attacker.agentKeys.classical.kid, 200)).toBe(200);
    const certificate = ownRecord('commissioning_certificate', { timestamp: new Date().toISOString() });
    const commissioned = await service.post(
      '/v2/lifecycle/commission',
      sign('commissioning_certificate', certificate),
    );
    expect(commissioned.status, shown(commissioned)).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await service?.close();
  });

  it('P207: a move dated before the agent was commissioned here is 409 and the agent does not move', async () => {
    for (const at of ['1970-01-01T00:00:00Z', new Date(Date.now() - 3_600_000).toISOString()]) {
      const refused = await move({ agent_id: attacker.agentId, to_state: 'active', timestamp: at });
      expect(refused.status, shown(refused)).toBe(409);
      expect(refused.json).toMatchObject({ error: { code: 'CONFLICT' } });
      expect(await stateOf(attacker.agentId)).toBe('commissioned');
    }
  });

  it('P207: a move dated before the latest stored move is 409; one dated at or after it is stored', async () => {
    const activeAt = new Date(Date.now() + 60_000).toISOString();
    const active = await move({ agent_id: attacker.agentId, to_state: 'active', timestamp: activeAt });
    expect(active.status, shown(active)).toBe(200);
    const before = new Date(Date.parse(activeAt) - 1).toISOString();
    const backdated = await move({ agent_id: attacker.agentId, to_state: 'declining', timestamp: before });
    expect(backdated.status, shown(backdated)).toBe(409);
    expect(backdated.json).toMatchObject({
      error: { code: 'CONFLICT', details: { latest_move_at: activeAt, timestamp: before } },
    });
    expect(await stateOf(attacker.agentId)).toBe('active');
    // The same instant as the latest move, written in another zone, is not before it.
    const sameInstant = new Date(Date.parse(activeAt) + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    const declining = await move({
      agent_id: attacker.agentId,
      to_state: 'declining',
      timestamp: sameInstant,
    });
    expect(declining.status, shown(declining)).toBe(200);
    expect(await stateOf(attacker.agentId)).toBe('declining');
  });

  it.each(RECORD_ROUTES.map((route) => [route.kind, route.path] as const))(
    'P207: a %s dated beyond the clock skew is 400 PROTO-E002 and nothing is stored',
    async (kind, path) => {
      for (const field of timeFieldsOf(kind)) {
        const record = ownRecord(kind, { [field]: '2999-01-01T00:00:00Z' });
        const refused = await service.post(path, sign(kind, record));
        expect(refused.status, `${field}: ${shown(refused)}`).toBe(400);
        expect(refused.json).toMatchObject({ error: { code: 'PROTO-E002' } });
        expect(JSON.stringify(refused.json)).toContain(`/${field}`);
      }
    },
  );

  it('P207: a record dated in the past or within the skew ahead is stored as sent', async () => {
    const soon = new Date(Date.now() + 2 * 60_000).toISOString();
    for (const [kind, path, fields] of [
      [
        'obligation_record',
        '/v2/rights/obligation',
        { obligation_id: 'obligation:p207-soon', timestamp: soon },
      ],
      [
        'objection_record',
        '/v2/dispute/objection',
        { objection_id: 'objection:p207-past', timestamp: '2020-01-01T00:00:00Z' },
      ],
    ] as const) {
      const stored = await service.post(path, sign(kind, ownRecord(kind, fields)));
      expect(stored.status, `${kind}: ${shown(stored)}`).toBe(201);
    }
  });
});
