// P444 over HTTP against two real replicas of the verification service on one PostgreSQL store. P375 makes a party of
// a dispute every id the key directory binds to the dispute's agents through shared principal (RPR) keys. The write
// authorizer read those parties before the resolution's write took the dispute's series lock, so a bundle verified on
// another replica while the write waited (here: behind a third session holding that lock, as another replica's write
// of the same dispute would) could make the signer a party, and the resolution was still stored.
// The member `first` signs with its own agent key; its second bundle, verified meanwhile, names the respondent's
// principal as its own (the same RPR keys), which makes it the respondent's kin: a party (P375).
import { buildSignedBundle } from '@proto/core';
import { dialectsUnderTest, seriesLockWaiter, testDatabaseUrl } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../src/records/test-support.ts';
import { type PanelFixture, startPanelFixture } from './verifier-with-records.ts';

const ARBITRATION = 'arbitration_resolution';

describe.each(dialectsUnderTest())(
  'a party known by the time its resolution is written, on %s',
  (dialect) => {
    let f: PanelFixture;
    const respondent = buildSignedBundle();
    const member = buildSignedBundle();

    /** Resolves once GET /v2/keys/<kid> lists `subject` among its bindings (the directory is fed after /verify answers). */
    const boundTo = async (kid: string, subject: string) => {
      for (let attempt = 0; attempt < 600; attempt++) {
        const res = await fetch(`${f.service.url}/v2/keys/${kid}`);
        const bindings = res.status === 200 ? (((await res.json()) as Json)['bindings'] as Json[]) : [];
        if (res.status !== 200) await res.arrayBuffer();
        if (bindings.some((binding) => binding['subject'] === subject)) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`${kid} was never bound to ${subject}`);
    };

    beforeAll(async () => {
      f = await startPanelFixture(dialect, 'v2-dispute-party-race', {}, { respondent, first: member });
    }, 180_000);
    afterAll(async () => {
      await f?.service.close();
    });

    it.skipIf(dialect !== 'postgres')(
      'P444: a member made a party while its resolution waited for the lock is refused when it is written',
      async () => {
        const id = 'dispute:p444-party-race';
        await f.file(id);
        const other = await f.service.secondReplica();
        // The member's next bundle: its own agent keys, the respondent's principal (and its RPR keys).
        const kin = buildSignedBundle({
          keys: { agent: member.keys.agent, principal: respondent.keys.principal },
        });

        // Another session holds the dispute's series lock, as a replica's write of this dispute would.
        const store = await f.service.replica();
        let release: () => void = () => undefined;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        let locked: () => void = () => undefined;
        const held = new Promise<void>((resolve) => {
          locked = resolve;
        });
        const holding = store.transaction(async (tx) => {
          await tx.records.lockSeries(ARBITRATION, id);
          locked();
          await gate;
        });
        await held;

        // Replica one: the member's resolution passes the authorizer (not yet a party) and waits for the lock.
        const ruling = f.resolve(f.resolution(id, 'The respondent keeps the ledger.', f.first.agentKeys));
        await seriesLockWaiter(testDatabaseUrl() as string, ARBITRATION, id);
        // Replica two: the member's new bundle is verified and bound; the member is now the respondent's kin.
        const res = await fetch(`${other}/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ signed_bundle: kin.signed_bundle }),
        });
        expect(((await res.json()) as Json)['verified']).toBe(true);
        await boundTo(f.respondent.principalKeys.classical.kid, f.first.agentId);

        release();
        await holding;
        const answer = await ruling;
        // Before P444: 201, stored `verified` and counted, by a member the store already knew as a party.
        expect(answer.status, f.shown(answer)).toBe(403);
        expect(answer.json).toMatchObject({
          error: { code: 'FORBIDDEN', details: { dispute_id: id, party: f.first.agentId } },
        });
        expect((await f.get(`/v2/dispute/arbitration/${id}`)).status).toBe(404);
        // And afterwards the authorizer refuses it too, as P375 has it.
        const again = await f.resolve(
          f.resolution(id, 'The respondent keeps the ledger.', f.first.agentKeys),
        );
        expect(again.status, f.shown(again)).toBe(403);
      },
    );
  },
);
