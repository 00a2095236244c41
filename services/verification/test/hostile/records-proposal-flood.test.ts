// P430: one appointed member's proposal flood (P372, P378), over HTTP against the real verification service with the
// /v2 records mounted, on every store dialect. Three appointed arbitrators, a quorum of two; retention keeps five
// records per kind (STORE_MAX_ENTRIES), so a flood of one dispute's proposals would evict another dispute's.
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROPOSALS_PER_MEMBER } from '../../src/records/panel-quorum.ts';
import type { Json } from '../../src/records/test-support.ts';
import { OPERATOR, type PanelFixture, type PartyKeys, startPanelFixture } from './verifier-with-records.ts';

describe.each(dialectsUnderTest())("one panel member's proposal flood, on %s", (dialect) => {
  let f: PanelFixture;
  let service: PanelFixture['service'];
  let first: PanelFixture['first'];
  let second: PanelFixture['second'];
  let third: PanelFixture['third'];

  const shown = (answer: { json: Json }) => f.shown(answer);
  const get = (path: string) => f.get(path);
  const file = (id: string) => f.file(id);
  const resolution = (id: string, text: string, keys: PartyKeys) => f.resolution(id, text, keys);
  const resolve = (record: Json) => f.resolve(record);

  beforeAll(async () => {
    f = await startPanelFixture(dialect, 'v2-proposal-flood', { STORE_MAX_ENTRIES: '5' });
    ({ service, first, second, third } = f);
  }, 180_000);
  afterAll(async () => {
    await f?.service.close();
  });

  it("P430: a member's distinct texts for one dispute are capped; another dispute's proposal survives the flood", async () => {
    expect(MAX_PROPOSALS_PER_MEMBER).toBe(3);
    // Dispute B: the first member's text is stored, the second member proposes another one (P372).
    const other = 'dispute:p430-other';
    await file(other);
    expect((await resolve(resolution(other, 'B: the initiator pays.', first.agentKeys))).status).toBe(201);
    const proposed = await resolve(resolution(other, 'B: split the cost.', second.agentKeys));
    expect(proposed.status, shown(proposed)).toBe(201);

    // Dispute A: the first member posts its text, then floods distinct texts while A is pending.
    const flooded = 'dispute:p430-flooded';
    await file(flooded);
    expect((await resolve(resolution(flooded, 'A: text 0', first.agentKeys))).status).toBe(201);
    const statuses: number[] = [];
    let refused: { status: number; json: Json } | undefined;
    for (let n = 1; n <= MAX_PROPOSALS_PER_MEMBER + 3; n++) {
      const answer = await resolve(resolution(flooded, `A: text ${n}`, first.agentKeys));
      statuses.push(answer.status);
      if (answer.status !== 201) refused ??= answer;
    }
    // Before P430: every distinct text was stored (201 x6), evicting dispute B's proposal (FIFO retention).
    expect(statuses).toEqual([201, 201, 201, 409, 409, 409]);
    expect(refused?.json, refused && shown(refused)).toMatchObject({
      error: {
        code: 'PROTO-E401',
        retryable: false,
        details: {
          dispute_id: flooded,
          arbitrator_id: first.agentId,
          max_proposals_per_member: MAX_PROPOSALS_PER_MEMBER,
        },
      },
    });
    expect(JSON.stringify(refused?.json)).not.toMatch(/stack|at \w+ \(/);

    // The member's own texts stay: the same copy again is 200, another member's signature of one is still taken.
    const again = await resolve(resolution(flooded, 'A: text 2', first.agentKeys));
    expect(again.status, shown(again)).toBe(200);
    // The member may still sign a text another member proposed (no new text stored).
    const theirs = await resolve(resolution(flooded, 'A: the third member proposes.', third.agentKeys));
    expect(theirs.status, shown(theirs)).toBe(201);
    const joined = await resolve(resolution(flooded, 'A: the third member proposes.', first.agentKeys));
    expect(joined.status, shown(joined)).toBe(200);
    const settledA = await get(`/v2/dispute/arbitration/${flooded}`);
    expect(settledA.json, shown(settledA)).toMatchObject({
      record: { resolution: 'A: the third member proposes.' },
      panel: { quorum: 2, signed_by: [first.agentId, third.agentId] },
    });

    // Dispute B's proposal survived: a third member's copy of it settles B.
    const cosigned = await resolve(resolution(other, 'B: split the cost.', third.agentKeys));
    // Before P430: 409 (B's proposal was evicted and its tombstone refuses a further copy).
    expect(cosigned.status, shown(cosigned)).toBe(200);
    const settledB = await get(`/v2/dispute/record/${other}`);
    expect(settledB.json, shown(settledB)).toMatchObject({ state: 'resolved' });
    const resolvedB = await get(`/v2/dispute/arbitration/${other}`);
    expect(resolvedB.json, shown(resolvedB)).toMatchObject({
      record: { resolution: 'B: split the cost.' },
      panel: { quorum: 2, signed_by: [second.agentId, third.agentId] },
    });
  });

  it('P431: a resolution evicted by retention reads as resolving only when it did: a settlement or a pending dispute shows', async () => {
    // Dispute C: the first member's text is pending, two other members settle C on another text (P372).
    const settled = 'dispute:p431-settled';
    await file(settled);
    expect((await resolve(resolution(settled, 'C: the first text.', first.agentKeys))).status).toBe(201);
    expect((await resolve(resolution(settled, 'C: the agreed text.', second.agentKeys))).status).toBe(201);
    expect((await resolve(resolution(settled, 'C: the agreed text.', third.agentKeys))).status).toBe(200);
    // Dispute D: the first member's text is pending, nobody else signed anything.
    const pending = 'dispute:p431-pending';
    await file(pending);
    expect((await resolve(resolution(pending, 'D: the only text.', first.agentKeys))).status).toBe(201);
    const before = await get(`/v2/dispute/record/${pending}`);
    expect(before.json['state'], shown(before)).not.toBe('resolved');

    // The operator's resolutions of five disputes not filed here fill the resolutions' retention (STORE_MAX_ENTRIES=5):
    // C's and D's first resolutions are evicted.
    for (let n = 1; n <= 5; n++) {
      const id = `dispute:p431-filler-${n}`;
      const filler = await service.post(
        '/v2/dispute/arbitration',
        resolution(id, `filler ${n}`, first.agentKeys),
        OPERATOR,
      );
      expect(filler.status, shown(filler)).toBe(201);
    }
    // P565: the evicted text answers its trace (before: 404), pending as the dispute reads it below.
    const gone = await get(`/v2/dispute/arbitration/${pending}`);
    expect(gone.json, shown(gone)).toMatchObject({
      record: null,
      evicted_at: expect.any(String),
      pending: true,
    });

    // C is resolved by its settlement, which the dispute still names (before: the evicted first text's trace).
    const c = await get(`/v2/dispute/record/${settled}`);
    expect(c.json, shown(c)).toMatchObject({
      state: 'resolved',
      resolution: { id: settled, panel: { quorum: 2, signed_by: [second.agentId, third.agentId] } },
    });
    expect((c.json['resolution'] as Json)['evicted_at'], shown(c)).toBeUndefined();
    // D never reached its quorum: its evicted pending text does not resolve it (before: `resolved`, P295's rule).
    const d = await get(`/v2/dispute/record/${pending}`);
    expect(d.json['state'], shown(d)).toBe(before.json['state']);
    expect(d.json, shown(d)).toMatchObject({ resolution: { id: pending } });
    expect((d.json['resolution'] as Json)['evicted_at'], shown(d)).toEqual(expect.any(String));
  });
});
