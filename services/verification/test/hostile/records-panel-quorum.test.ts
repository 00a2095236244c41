// P297 over HTTP against the real verification service with the /v2 records mounted, on every store dialect.
// SPEC has disputes arbitrated "by M-of-N panels", yet one appointed arbitrator's signature resolved a dispute whatever
// panel it named: a panel of three, or one arbitrator listed three times, was settled by a single member. With the
// operator's quorum (RECORDS_PANEL_QUORUM=2 of the appointed RECORDS_ARBITRATORS), the dispute is resolved once two
// distinct appointed arbitrators have signed the same resolution; a second key of the same arbitrator adds nothing.
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OPERATOR,
  type PanelFixture,
  type PartyKeys,
  startPanelFixture,
  startVerifierWithRecords,
} from './verifier-with-records.ts';

describe.each(dialectsUnderTest())('an M-of-N panel is counted, on %s', (dialect) => {
  let f: PanelFixture;
  let service: PanelFixture['service'];
  let first: PanelFixture['first'];
  let second: PanelFixture['second'];
  let third: PanelFixture['third'];

  const shown = (answer: { json: unknown }) => JSON.stringify(answer.json).slice(0, 400);
  const stateOf = (id: string) => f.disputeOf(id);
  const file = (id: string) => f.file(id);
  const resolution = (id: string, panel: readonly string[], keys: PartyKeys) =>
    f.resolution(id, 'Ledger writes alternate in 15-minute windows.', keys, { arbitrator_ids: [...panel] });

  beforeAll(async () => {
    f = await startPanelFixture(dialect, 'v2-panel-quorum');
    ({ service, first, second, third } = f);
  }, 180_000);
  afterAll(async () => {
    await f?.service.close();
  });

  it('P297: one arbitrator does not resolve for a panel of three; a second distinct one does', async () => {
    const id = 'dispute:p297-two-of-three';
    await file(id);
    const panel = [first.agentId, second.agentId, third.agentId];

    const firstCopy = resolution(id, panel, first.agentKeys);
    const one = await service.post('/v2/dispute/arbitration', firstCopy);
    expect(one.status, shown(one)).toBe(201);
    expect(one.json).toMatchObject({ panel: { quorum: 2, signed_by: [first.agentId] } });
    expect(await stateOf(id)).toMatchObject({ state: 'open', resolution: { id, panel: { quorum: 2 } } });

    // The same arbitrator again, with its other key (its principal's, bound to it too): still one arbitrator.
    const again = await service.post('/v2/dispute/arbitration', resolution(id, panel, first.principalKeys));
    expect(again.status, shown(again)).toBe(200);
    expect(again.json).toMatchObject({ panel: { quorum: 2, signed_by: [first.agentId] } });
    expect(await stateOf(id)).toMatchObject({ state: 'open' });

    const two = await service.post('/v2/dispute/arbitration', resolution(id, panel, second.agentKeys));
    expect(two.status, shown(two)).toBe(200);
    expect(two.json).toMatchObject({ panel: { quorum: 2, signed_by: [first.agentId, second.agentId] } });
    // The record stored is the first signer's, unchanged.
    expect(two.json['record']).toEqual(firstCopy);
    expect(await stateOf(id)).toMatchObject({
      state: 'resolved',
      resolution: { id, panel: { quorum: 2, signed_by: [first.agentId, second.agentId] } },
    });
  });

  it('P297: a panel that names fewer distinct arbitrators than the quorum is refused, duplicates not counted', async () => {
    const id = 'dispute:p297-one-listed-twice';
    await file(id);
    const doubled = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, [first.agentId, first.agentId], first.agentKeys),
    );
    expect(doubled.status, shown(doubled)).toBe(403);
    expect(doubled.json).toMatchObject({
      error: { code: 'FORBIDDEN', details: { quorum: 2, panel_size: 1 } },
    });
    expect(await stateOf(id)).toMatchObject({ state: 'open' });
  });

  it("P297: a member's signature over another resolution text is no signature of the pending one (P372: its own proposal)", async () => {
    const id = 'dispute:p297-other-text';
    await file(id);
    const panel = [first.agentId, second.agentId];
    expect(
      (await service.post('/v2/dispute/arbitration', resolution(id, panel, first.agentKeys))).status,
    ).toBe(201);
    const other = f.resolution(id, 'The respondent keeps the ledger.', second.agentKeys, {
      arbitrator_ids: panel,
    });
    const answer = await service.post('/v2/dispute/arbitration', other);
    // P372: not counted for the pending text; stored as a proposal of its own, counted once (was 409 before P372).
    expect(answer.status, shown(answer)).toBe(201);
    expect(answer.json).toMatchObject({ record: other, panel: { quorum: 2, signed_by: [second.agentId] } });
    expect(await stateOf(id)).toMatchObject({
      state: 'open',
      resolution: { id, panel: { quorum: 2, signed_by: [first.agentId] } },
    });
  });

  it('P297: a quorum the appointed arbitrators cannot reach fails the boot, rather than counting self-named ones', async () => {
    await expect(
      startVerifierWithRecords(dialect, 'v2-panel-quorum-unappointed', { RECORDS_PANEL_QUORUM: '2' }),
    ).rejects.toThrow(/RECORDS_ARBITRATORS must name at least 2/);
    await expect(
      startVerifierWithRecords(dialect, 'v2-panel-quorum-too-few', {
        RECORDS_ARBITRATORS: first.agentId,
        RECORDS_PANEL_QUORUM: '2',
      }),
    ).rejects.toThrow(/names 1/);
  });

  it("P297: the operator's administrative resolution is not counted: it resolves (D22)", async () => {
    const id = 'dispute:p297-operator';
    await file(id);
    const byOperator = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, [first.agentId, second.agentId], first.agentKeys),
      OPERATOR,
    );
    expect(byOperator.status, shown(byOperator)).toBe(201);
    expect(await stateOf(id)).toMatchObject({ state: 'resolved' });
    // A member's signed copy of it counts nothing and leaves the dispute resolved (the operator's is no pending count).
    const signedCopy = await service.post(
      '/v2/dispute/arbitration',
      resolution(id, [first.agentId, second.agentId], first.agentKeys),
    );
    expect(signedCopy.status, shown(signedCopy)).toBe(409);
    expect(await stateOf(id)).toMatchObject({ state: 'resolved' });
  });
});
