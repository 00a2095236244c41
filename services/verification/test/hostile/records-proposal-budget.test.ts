// P441–P442 over HTTP against the real verification service with the /v2 records mounted, on every store dialect.
// P430 caps the texts one panel member proposes for a dispute (three while it is pending), but it counted every text
// the member had signed: a member that co-signed three texts other members proposed could no longer propose its own.
// A quorum of three of the three appointed members keeps each co-signed text pending.
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROPOSALS_PER_MEMBER } from '../../src/records/panel-quorum.ts';
import { OPERATOR, type PanelFixture, startPanelFixture } from './verifier-with-records.ts';

describe.each(dialectsUnderTest())("a panel member's proposal budget, on %s", (dialect) => {
  let f: PanelFixture;

  beforeAll(async () => {
    f = await startPanelFixture(dialect, 'v2-proposal-budget', { RECORDS_PANEL_QUORUM: '3' });
  }, 180_000);
  afterAll(async () => {
    await f?.service.close();
  });

  it("P441: co-signing other members' texts does not use up a member's own proposals", async () => {
    const { first, second, third } = f;
    const id = 'dispute:p441-cosigned';
    await f.file(id);
    expect((await f.resolve(f.resolution(id, 'The first text.', first.agentKeys))).status).toBe(201);
    // The second member proposes its three texts; the third co-signs each (two of three: all still pending).
    for (let n = 1; n <= MAX_PROPOSALS_PER_MEMBER; n++) {
      const text = `The second member's text ${n}.`;
      const proposed = await f.resolve(f.resolution(id, text, second.agentKeys));
      expect(proposed.status, f.shown(proposed)).toBe(201);
      const cosigned = await f.resolve(f.resolution(id, text, third.agentKeys));
      expect(cosigned.status, f.shown(cosigned)).toBe(200);
      expect(cosigned.json).toMatchObject({ panel: { signed_by: [second.agentId, third.agentId] } });
    }
    expect(await f.disputeOf(id)).toMatchObject({ state: 'open' });

    // The third member's own text: before P441, 409 PROTO-E401 "already proposed 3 texts" (its co-signatures counted).
    const own = await f.resolve(f.resolution(id, "The third member's own text.", third.agentKeys));
    expect(own.status, f.shown(own)).toBe(201);
    // Its own budget is still three texts it proposed.
    for (const n of [2, 3]) {
      const more = await f.resolve(f.resolution(id, `The third member's text ${n}.`, third.agentKeys));
      expect(more.status, f.shown(more)).toBe(201);
    }
    const over = await f.resolve(f.resolution(id, "The third member's text 4.", third.agentKeys));
    expect(over.status, f.shown(over)).toBe(409);
    expect(over.json).toMatchObject({
      error: { code: 'PROTO-E401', details: { arbitrator_id: third.agentId, proposals: 3 } },
    });
    // The proposer's own count is unchanged: a fourth text of the second member is refused.
    const fourth = await f.resolve(f.resolution(id, "The second member's text 4.", second.agentKeys));
    expect(fourth.status, f.shown(fourth)).toBe(409);
    // Co-signing is never capped: the first member signs one of the third member's texts.
    const joined = await f.resolve(f.resolution(id, "The third member's own text.", first.agentKeys));
    expect(joined.status, f.shown(joined)).toBe(200);
  });

  it("P442: the appeal's phase gives each member its own budget (held: a decision appealed here was never counted)", async () => {
    const { first, second } = f;
    const id = 'dispute:p442-appeal';
    // The decision appealed is stored before the dispute is filed appealed (P296), and a panel's signed resolution
    // needs the dispute filed (P203): so the decision is the operator's and nobody's proposal budget is spent on it.
    expect((await f.resolve(f.resolution(id, 'The decision.', first.agentKeys), OPERATOR)).status).toBe(201);
    await f.file(id, { status: 'appealed', escalation_level: 'human_appeal' });
    const later = { timestamp: '2026-06-06T12:00:00Z' };
    expect((await f.resolve(f.resolution(id, 'The first outcome.', first.agentKeys, later))).status).toBe(
      201,
    );
    const statuses: number[] = [];
    for (let n = 1; n <= MAX_PROPOSALS_PER_MEMBER + 1; n++) {
      statuses.push((await f.resolve(f.resolution(id, `Outcome ${n}.`, second.agentKeys, later))).status);
    }
    expect(statuses).toEqual([201, 201, 201, 409]);
  });
});
