// P443 over HTTP against the real verification service with the /v2 records mounted, on every store dialect.
// P297 counts a resolution's signers as distinct appointed arbitrators, a key once and a member once, each key given
// to the first member in panel order it speaks for that is not counted yet. A key may speak for two members: a
// passport may list keys of other holders (P377), so the second member's verified bundle, listing the first member's
// key beside its own, binds that key to both. Counted greedily in arrival order, the first member's signature took the
// second member's seat (the second is first in panel order), and the second member's own key then found no seat:
// two members had signed with two keys, and the quorum of two did not count.
import { buildSignedBundle } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleListing, type PanelFixture, startPanelFixture } from './verifier-with-records.ts';

describe.each(dialectsUnderTest())('a panel counted as a matching of keys to members, on %s', (dialect) => {
  let f: PanelFixture;

  beforeAll(async () => {
    const first = buildSignedBundle();
    // The second member's passport lists the first member's agent key beside its own (never used by it).
    const listedAt = new Date(Date.now() - 120_000).toISOString();
    const second = bundleListing([{ keys: first.keys.agent, createdAt: listedAt }]);
    f = await startPanelFixture(dialect, 'v2-panel-matching', {}, { first, second });
  }, 180_000);
  afterAll(async () => {
    await f?.service.close();
  });

  it('P443: two members signing with two keys count two, whichever of them signs first', async () => {
    const { first, second, third } = f;
    // The second member first in panel order: the first member's key, bound to both, speaks for it first.
    const panel = { arbitrator_ids: [second.agentId, first.agentId, third.agentId] };
    for (const [label, order] of [
      ['first-then-second', [first, second]],
      ['second-then-first', [second, first]],
    ] as const) {
      const id = `dispute:p443-${label}`;
      await f.file(id);
      const [one, two] = order;
      const opened = await f.resolve(f.resolution(id, 'Split the ledger.', one.agentKeys, panel));
      expect(opened.status, f.shown(opened)).toBe(201);
      expect((opened.json['panel'] as { signed_by: unknown[] }).signed_by).toHaveLength(1);
      const joined = await f.resolve(f.resolution(id, 'Split the ledger.', two.agentKeys, panel));
      expect(joined.status, f.shown(joined)).toBe(200);
      // Before P443, first-then-second: `signed_by: [second]` and the dispute stayed open (the first member's key
      // had taken the second member's seat, and the second member's own key found none).
      expect(joined.json, f.shown(joined)).toMatchObject({
        panel: { quorum: 2, signed_by: [second.agentId, first.agentId] },
      });
      expect(await f.disputeOf(id), label).toMatchObject({ state: 'resolved' });
    }
  });
});
