// P461: before P394 a witnessed log anchored its newest signed root whatever the witnesses had done, and those rows
// stayed: `/root/signed` showed the newest, of a size no quorum cosigned, as `root_anchor` beside the older published
// checkpoint, and the anchorer, seeing it stored, never anchored the published root of that size once it was
// cosigned. Now the first start that knows the rule removes the anchors of sizes without a stored quorum, once per
// database. The real log over HTTP on SQLite and PostgreSQL, a real witness and a second behind a node:http front that
// cosigns, then refuses; quorum 2 of 2; the anchor service a node:http front recording each POST /anchor. The row a
// pre-P394 log stored is written with the log's own store calls, as that anchorer wrote it.
import { type Cosigner, cosignCheckpoint, formatSignatureLine, selectCryptoBackend } from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { dialectsUnderTest } from '@proto/store/testing';
import { type HostileFront, startHostileFront } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendHashes, testCosigner, testLogIdentity } from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { witnessId } from '../../src/witness-config.ts';
import { honestCosignature } from './testing/front-answers.ts';
import { startTwoOfTwoLog, type TwoOfTwoLog } from './testing/two-of-two-log.ts';

const second: Cosigner = testCosigner('witness.test/root-anchor-sweep');

describe.each(dialectsUnderTest())(
  'P461: root anchors of unpublished sizes, on %s',
  (dialect: StoreDialect) => {
    const identity = testLogIdentity(`log.test/root-anchor-sweep-${dialect}`);
    const tag = `root-anchor-sweep-${dialect}`;
    const anchored: string[] = [];
    const lines: string[] = [];
    let setup: TwoOfTwoLog;
    let anchorService: HostileFront;
    let refuse = false;

    beforeAll(async () => {
      anchorService = await startHostileFront((request, res) => {
        if (request.method === 'POST')
          anchored.push((JSON.parse(request.text()) as { bundle_hash: string }).bundle_hash);
        res
          .writeHead(request.method === 'POST' ? 202 : 200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ anchor_receipt: { status: 'pending' } }));
      });
      setup = await startTwoOfTwoLog({
        dialect,
        identity,
        honestName: 'witness.test/root-anchor-sweep-honest',
        frontKey: second,
        answer: (request, res) => {
          if (refuse) res.writeHead(403, { 'content-type': 'text/plain' }).end('no');
          else res.writeHead(200, { 'content-type': 'text/plain' }).end(honestCosignature(request, second));
        },
        label: tag,
        env: {
          ANCHOR_SERVICE_URL: anchorService.url,
          ANCHOR_TOKEN: 'anchor-token-0123456789',
          ANCHOR_CHAIN: 'bitcoin',
        },
      });
    });

    afterAll(async () => {
      await setup?.close();
      await anchorService?.close();
    });

    /** GET /root/signed, through Fastify's own HTTP injection (the instance stays open for the next step). */
    const signedRoot = async (app: FastifyInstance) =>
      (await app.inject({ method: 'GET', url: '/root/signed' })).json() as {
        tree_size: number;
        root: string;
        root_anchor?: { tree_size: number; status: string };
      };

    /**
     * A database from before P461 has no record of the sweep (the set-up's start, on this code, made one). The log's
     * tables are declared beside its repository, not in the store's Database type: the query is typed here.
     */
    const forgetSweep = async (app: FastifyInstance) => {
      const db = app.transparencyLog.store.db as unknown as {
        deleteFrom(table: 'tlog_meta'): {
          where(column: 'name', op: '=', value: string): { execute(): Promise<unknown> };
        };
      };
      await db.deleteFrom('tlog_meta').where('name', '=', 'root_anchors_swept').execute();
    };

    /** The sweep's warn lines, one per anchor removed. */
    const sweptAnchors = (logLines: readonly string[]) =>
      logLines
        .map((line) => JSON.parse(line) as { msg: string; tree_size?: number; tx_id?: string })
        .filter((line) => line.msg.startsWith('root anchor of a checkpoint no witness quorum cosigned'));

    /**
     * Two more entries signed while the second witness refuses (`refuse` set by the caller), and the anchor a pre-P394
     * anchorer stored for that uncosigned size: confirmed, with a transaction, written with the store's own calls.
     */
    const anchorUncosigned = async (app: FastifyInstance, from: number, txId: string) => {
      await appendHashes(app, [bundleHash(from, tag), bundleHash(from + 1, tag)]);
      await app.transparencyLog.checkpointer.tick();
      const unpublished = app.transparencyLog.checkpointer.latest;
      expect(unpublished?.size).toBe(from + 2);
      const { log: repository } = app.transparencyLog.store;
      const now = new Date();
      expect(await repository.claimRootAnchor(from + 2, unpublished!.root, now, now)).toBe(true);
      const receipt = {
        status: 'confirmed',
        chain: 'bitcoin',
        txId,
        blockHeight: 800_000,
        receiptJson: '{}',
      } as const;
      await repository.finishRootAnchor(from + 2, receipt, now);
      return now;
    };

    it('removes them once, at the first start, and anchors the published root afterwards', async () => {
      const first = setup.log;
      await appendHashes(first, [bundleHash(0, tag), bundleHash(1, tag)]);
      await first.transparencyLog.checkpointer.tick();
      await first.transparencyLog.anchorer?.tick();
      expect(anchored).toHaveLength(1);

      // The second witness refuses: size 4 is signed, never cosigned. A pre-P394 anchorer sent its root and stored
      // the anchor service's answer (here: confirmed, with a transaction).
      refuse = true;
      await anchorUncosigned(first, 2, 'aa'.repeat(32));
      await forgetSweep(first);
      await first.close();

      // The upgraded log starts on the same store.
      const upgraded = await setup.another({ env: { LOG_LEVEL: 'info' }, logLines: lines });
      const signed = await signedRoot(upgraded);
      expect(signed.tree_size).toBe(2);
      // Before P461: 4, the anchor of a checkpoint no quorum cosigned, shown beside the published size 2.
      expect(signed.root_anchor?.tree_size).toBe(2);
      expect((await upgraded.transparencyLog.store.log.latestRootAnchor())?.size).toBe(2);
      expect(sweptAnchors(lines)).toMatchObject([{ tree_size: 4, tx_id: 'aa'.repeat(32) }]);

      // Cosigned at last: the published root of size 4 is anchored (before P461: never, its stale row stood for it).
      refuse = false;
      await upgraded.transparencyLog.checkpointer.tick();
      await upgraded.transparencyLog.anchorer?.tick();
      const now4 = await signedRoot(upgraded);
      expect(now4.tree_size).toBe(4);
      expect(anchored).toEqual([anchored[0], `sha256:${now4.root}`]);
      expect(now4.root_anchor?.tree_size).toBe(4);
      await upgraded.close();

      // Once per database: a later start removes nothing, whatever it finds.
      const later = await setup.another();
      expect(await later.transparencyLog.store.log.meta('root_anchors_swept')).toBe('P461');
      expect((await later.transparencyLog.store.log.latestRootAnchor())?.size).toBe(4);
      await later.close();
    });

    // P543: the sweep counted stored rows. A row written into tlog_cosignatures under the refusing witness's name and
    // key ID (signed by its key, over a text that is not the log's checkpoint of that size) made the count reach the
    // quorum, and the anchor of a checkpoint no quorum cosigned stayed.
    it('keeps no anchor whose quorum counts a stored line that does not verify over its checkpoint', async () => {
      const next = await setup.another();
      refuse = true;
      const now = await anchorUncosigned(next, 4, 'bb'.repeat(32));
      const forged = cosignCheckpoint(
        `${identity.origin}\n6\n${Buffer.alloc(32, 7).toString('base64')}\n`,
        second,
        Math.floor(now.getTime() / 1000),
        selectCryptoBackend(),
      );
      if (!forged.ok) throw new Error(forged.error.message);
      expect(
        await next.transparencyLog.store.logCosignatures.save(
          6,
          witnessId(second),
          formatSignatureLine(forged.value),
        ),
      ).toBe(true);
      await forgetSweep(next);
      await next.close();

      const sweepLines: string[] = [];
      const upgraded = await setup.another({ env: { LOG_LEVEL: 'info' }, logLines: sweepLines });
      // Before P543: 6, the forged line counted as the second witness's cosignature.
      expect((await upgraded.transparencyLog.store.log.latestRootAnchor())?.size).toBe(4);
      expect((await signedRoot(upgraded)).root_anchor?.tree_size).toBe(4);
      expect(sweptAnchors(sweepLines)).toMatchObject([{ tree_size: 6, tx_id: 'bb'.repeat(32) }]);
      await upgraded.close();
    });
  },
);
