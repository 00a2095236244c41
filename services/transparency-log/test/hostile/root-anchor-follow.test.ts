// P463: P392 followed a confirmed root anchor for 8 more polls whatever its depth: about 2 hours at the default
// interval, past the point where a reorganisation matters on Ethereum, and 8 polls even for an anchor its receipt
// already reported final. Now a confirmed anchor is followed until its receipt reports the chain's final
// confirmations (ROOT_ANCHOR_FINAL_CONFIRMATIONS, evm=64,bitcoin=6 as in the verification service, P462), at most
// ROOT_ANCHOR_CONFIRMED_POLLS_MAX polls; a receipt that states no depth, 8 polls as before. The real log on SQLite and
// PostgreSQL over HTTP; the anchor service a node:http front answering each receipt poll with the depth the test set.
// The log's clock is the test's: a round's due polls are those whose wait has passed, so the test steps an hour.
import type { StoreDialect } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { type HostileFront, startHostileFront, type TempDir } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendHashes } from '../../src/test-helpers.ts';
import { buildTestLog, bundleHash, tempDataDir } from '../../src/test-support.ts';

describe.each(dialectsUnderTest())(
  'P463: how long a confirmed root anchor is followed, on %s',
  (dialect: StoreDialect) => {
    const tag = `root-anchor-follow-${dialect}`;
    /** Per anchored root (`sha256:<hex>`): the depth its receipt states (undefined: none), and the polls it got. */
    const depth = new Map<string, number | undefined>();
    const polls = new Map<string, number>();
    let anchorService: HostileFront;
    let target: StoreTarget;
    let dir: TempDir;
    let log: FastifyInstance;
    let now = Date.parse('2026-01-01T00:00:00.000Z');

    beforeAll(async () => {
      anchorService = await startHostileFront((request, res) => {
        const hash = decodeURIComponent(request.path.split('/').pop() ?? '');
        if (request.method === 'POST') {
          res
            .writeHead(202, { 'content-type': 'application/json' })
            .end(JSON.stringify({ anchor_receipt: { status: 'pending' } }));
          return;
        }
        polls.set(hash, (polls.get(hash) ?? 0) + 1);
        const confirmations = depth.get(hash);
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            anchor_receipt: {
              chain: 'ethereum',
              contract: `0x${'11'.repeat(20)}`,
              tx_id: `0x${'22'.repeat(32)}`,
              block_number: 100,
              bundle_hash: hash,
              status: 'confirmed',
              ...(confirmations === undefined ? {} : { confirmations }),
            },
          }),
        );
      });
      target = await createStoreTarget(dialect, tag);
      dir = await tempDataDir(tag);
      log = await buildTestLog(
        dir.dir,
        {
          ANCHOR_SERVICE_URL: anchorService.url,
          ANCHOR_TOKEN: 'anchor-token-0123456789',
          ANCHOR_CHAIN: 'ethereum',
          ROOT_ANCHOR_INTERVAL_MS: '60000',
        },
        target.fresh(tag),
        { timers: false, clock: () => new Date(now) },
      );
    });

    afterAll(async () => {
      await log?.close();
      await anchorService?.close();
      await target?.cleanup();
      await dir?.remove();
    });

    /** Grows the tree, signs it and has the anchorer send its root: the new anchor's bundle hash. */
    async function anchorNewRoot(leaves: number): Promise<string> {
      const size = log.transparencyLog.checkpointer.latest?.size ?? 0;
      await appendHashes(
        log,
        Array.from({ length: leaves }, (_, i) => bundleHash(size + i, tag)),
      );
      const signed = await log.transparencyLog.checkpointer.tick();
      await log.transparencyLog.anchorer?.tick();
      return `sha256:${Buffer.from(signed?.root ?? []).toString('hex')}`;
    }

    /** `rounds` anchoring rounds an hour apart (every wait, at most 15 minutes, has passed at each). */
    async function hours(rounds: number): Promise<void> {
      for (let i = 0; i < rounds; i++) {
        now += 3_600_000;
        await log.transparencyLog.anchorer?.tick();
      }
    }

    it('stops at the chain final depth, follows a shallower receipt past 8 polls, and 8 without a depth', async () => {
      const deep = await anchorNewRoot(2);
      depth.set(deep, 70);
      const shallow = await anchorNewRoot(2);
      depth.set(shallow, 24);
      const silent = await anchorNewRoot(2);
      depth.set(silent, undefined);
      await hours(20);
      // The first poll reads pending → confirmed; then one poll at 70 ≥ 64 ends the watch (before P463: 1 + 8).
      expect(polls.get(deep)).toBe(2);
      // 24 < 64 (an anchor service whose reorganisation watch stops at 2 × 12): followed every round (before: 1 + 8).
      expect(polls.get(shallow)).toBe(21);
      // A receipt stating no depth: P392's 8 polls after it read confirmed.
      expect(polls.get(silent)).toBe(9);
      // The shallow one stops at the cap.
      await hours(40);
      expect(polls.get(shallow)).toBe(1 + 32);
      expect(polls.get(deep)).toBe(2);
      const signed = (await log.inject({ method: 'GET', url: '/root/signed' })).json() as {
        root_anchor: { status: string };
      };
      expect(signed.root_anchor.status).toBe('confirmed');
    });
  },
);
