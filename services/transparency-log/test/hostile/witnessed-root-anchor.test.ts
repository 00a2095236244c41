// P394: on a witnessed log the root anchorer sent the newest *signed* root to the anchor service, whether or not the
// witness quorum had cosigned it, and `/root/signed` then showed, beside the published (cosigned) checkpoint, a
// `root_anchor` for a newer size no quorum covers. Now a witnessed log anchors only published checkpoints. The real
// log over HTTP with a real witness and a second configured witness behind a node:http front that answers honestly,
// then refuses (quorum 2 of 2); the anchor service a node:http front recording each POST /anchor (as anchor.test.ts).
import type { Cosigner } from '@proto/core';
import { type HostileFront, listenOnPort0, startHostileFront } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendHashes, testCosigner, testLogIdentity } from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { honestCosignature } from './testing/front-answers.ts';
import { startTwoOfTwoLog, type TwoOfTwoLog } from './testing/two-of-two-log.ts';

const second: Cosigner = testCosigner('witness.test/witnessed-root-anchor');

describe('P394: a witnessed log anchors only roots the witness quorum cosigned', () => {
  const identity = testLogIdentity('log.test/witnessed-root-anchor');
  let setup: TwoOfTwoLog;
  let anchorService: HostileFront;
  let log: FastifyInstance;
  let url: string;
  let refuse = false;
  const anchored: string[] = [];

  beforeAll(async () => {
    anchorService = await startHostileFront((request, res) => {
      const body = JSON.parse(request.text()) as { bundle_hash: string };
      anchored.push(body.bundle_hash);
      res
        .writeHead(202, { 'content-type': 'application/json' })
        .end(JSON.stringify({ anchor_receipt: { status: 'pending', bundle_hash: body.bundle_hash } }));
    });
    setup = await startTwoOfTwoLog({
      identity,
      honestName: 'witness.test/wra-honest',
      frontKey: second,
      answer: (request, res) => {
        if (refuse) res.writeHead(403, { 'content-type': 'text/plain' }).end('no');
        else res.writeHead(200, { 'content-type': 'text/plain' }).end(honestCosignature(request, second));
      },
      label: 'wra',
      env: {
        ANCHOR_SERVICE_URL: anchorService.url,
        ANCHOR_TOKEN: 'anchor-token-0123456789',
        ANCHOR_CHAIN: 'bitcoin',
      },
    });
    log = setup.log;
    url = (await listenOnPort0(log)).url;
  });

  afterAll(async () => {
    await setup?.close();
    await anchorService?.close();
  });

  it('sends the published root, never a newer signed one without the quorum', async () => {
    const { checkpointer, anchorer } = log.transparencyLog;
    if (anchorer === undefined) throw new Error('root anchoring must be on');
    await appendHashes(log, [bundleHash(0, 'wra'), bundleHash(1, 'wra')]);
    await checkpointer.tick();
    await anchorer.tick();
    const published2 = (await (await fetch(`${url}/root/signed`)).json()) as Record<string, unknown>;
    expect(published2['tree_size']).toBe(2);
    expect(anchored).toEqual([`sha256:${published2['root']}`]);

    // The second witness refuses from now on: size 4 is signed, never cosigned by the quorum.
    refuse = true;
    await appendHashes(log, [bundleHash(2, 'wra'), bundleHash(3, 'wra')]);
    await checkpointer.tick();
    expect(checkpointer.latest?.size).toBe(4);
    await anchorer.tick();
    // Before P394: the root of size 4 was sent, and root_anchor showed size 4 beside the checkpoint of size 2.
    expect(anchored).toHaveLength(1);
    const signed = (await (await fetch(`${url}/root/signed`)).json()) as Record<string, unknown>;
    expect(signed['tree_size']).toBe(2);
    expect((signed['root_anchor'] as Record<string, unknown>)['tree_size']).toBe(2);

    // Cosigned at last: anchored then.
    refuse = false;
    await checkpointer.tick();
    await anchorer.tick();
    const published4 = (await (await fetch(`${url}/root/signed`)).json()) as Record<string, unknown>;
    expect(published4['tree_size']).toBe(4);
    expect(anchored).toEqual([`sha256:${published2['root']}`, `sha256:${published4['root']}`]);
    expect((published4['root_anchor'] as Record<string, unknown>)['tree_size']).toBe(4);
  });
});
