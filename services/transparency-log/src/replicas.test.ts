// Two instances of the log on one database, appending, signing and anchoring at once, never diverge: one index
// per leaf, one root per signed size, every checkpoint consistent with the next. DECISIONS D18; docs/architecture.md §4.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeBase64, selectCryptoBackend, verifyTlogConsistency } from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestLog,
  bundleHash,
  digestOf,
  hex,
  naiveRoot,
  OPERATOR_AUTH,
  tempDataDir,
} from './test-support.ts';

async function readBody(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}

describe.each(dialectsUnderTest())('two instances on one %s database', (dialect: StoreDialect) => {
  let target: StoreTarget;
  let anchorService: Server;
  const anchorRequests: Array<{ bundle_hash: string }> = [];

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'tlog-replicas');
    anchorService = createServer(async (request, response) => {
      // POST /anchor submits a root; GET /anchor/<hash> is the log polling a pending receipt (nothing to record).
      if (request.method === 'POST') anchorRequests.push(JSON.parse(await readBody(request)));
      // Slow enough that both instances' rounds overlap.
      await new Promise((r) => setTimeout(r, 30));
      response.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"pending"}');
    });
    await new Promise<void>((resolve) => anchorService.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => anchorService.close(resolve));
    await target.cleanup();
  });

  it('assign each leaf one index and sign one root per size, all consistent', async () => {
    anchorRequests.length = 0;
    const backend = selectCryptoBackend();
    const env = {
      LOG_ED25519_KEY: encodeBase64(backend.generateKeyPair('ed25519').secretKey),
      LOG_MLDSA_KEY: encodeBase64(backend.generateKeyPair('ml-dsa-65').secretKey),
      BATCH_MAX: '16',
      ANCHOR_SERVICE_URL: `http://127.0.0.1:${(anchorService.address() as AddressInfo).port}`,
    };
    const shared = target.fresh('replicas');
    const dirs = [await tempDataDir('replica-a'), await tempDataDir('replica-b')];
    const apps: FastifyInstance[] = [];
    try {
      for (const dir of dirs) apps.push(await buildTestLog(dir.dir, env, shared, { timers: false }));
      const [a, b] = apps as [FastifyInstance, FastifyInstance];

      const distinct = Array.from({ length: 300 }, (_, i) => bundleHash(i, 'replicas'));
      const sent: Array<Promise<{ hash: string; index: number; status: number }>> = [];
      distinct.forEach((hash, i) => {
        // Every fifth hash goes to both instances at once; the rest alternate.
        const targets = i % 5 === 0 ? [a, b] : [i % 2 === 0 ? a : b];
        for (const app of targets) {
          sent.push(
            app
              .inject({ method: 'POST', url: '/add', payload: { bundle_hash: hash }, headers: OPERATOR_AUTH })
              .then((res) => ({ hash, index: res.json().log_index as number, status: res.statusCode })),
          );
        }
      });
      // Both sign and anchor while the appends run.
      const rounds = (async () => {
        for (let i = 0; i < 8; i++) {
          await Promise.all(
            apps.flatMap((app) => [
              app.transparencyLog.checkpointer.tick(),
              app.transparencyLog.anchorer?.tick(),
            ]),
          );
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const answers = await Promise.all(sent);
      await rounds;
      await Promise.all(apps.map((app) => app.transparencyLog.checkpointer.tick()));

      expect(answers.every((r) => r.status === 200 || r.status === 201)).toBe(true);
      const indexOf = new Map<string, number>();
      for (const answer of answers) {
        const known = indexOf.get(answer.hash);
        if (known !== undefined) expect(answer.index, answer.hash).toBe(known);
        indexOf.set(answer.hash, answer.index);
      }
      // Each doubly-sent hash: exactly one of the two answers created it.
      const created = answers.filter((r) => r.status === 201).length;
      expect(created).toBe(distinct.length);

      const rootA = (await a.inject({ url: '/root' })).json();
      const rootB = (await b.inject({ url: '/root' })).json();
      expect(rootA.tree_size).toBe(distinct.length);
      expect(rootB.root).toBe(rootA.root);
      const entries = (await a.inject({ url: `/entries?start=0&end=${distinct.length}` })).json()
        .entries as Array<{
        log_index: number;
        bundle_hash: string;
      }>;
      expect(entries.map((e) => e.log_index)).toEqual([...Array(distinct.length).keys()]);
      for (const entry of entries) expect(indexOf.get(entry.bundle_hash)).toBe(entry.log_index);
      const inputs = entries.map((e) => digestOf(e.bundle_hash));
      expect(rootA.root).toBe(hex(naiveRoot(inputs)));

      const stored = await a.transparencyLog.store.log.checkpoints(0, distinct.length);
      expect(stored.length).toBeGreaterThanOrEqual(2);
      expect(stored.at(-1)?.size).toBe(distinct.length);
      for (const checkpoint of stored)
        expect(hex(checkpoint.root), `size ${checkpoint.size}`).toBe(hex(naiveRoot(inputs, checkpoint.size)));
      for (let i = 1; i < stored.length; i++) {
        const older = stored[i - 1] as (typeof stored)[number];
        const newer = stored[i] as (typeof stored)[number];
        const proof = (
          await b.inject({ url: `/consistency?first=${older.size}&second=${newer.size}` })
        ).json().proof;
        expect(verifyTlogConsistency(older, newer, proof).ok).toBe(true);
      }
      // One anchor request per signed size, whichever instance won the claim.
      const anchored = anchorRequests.map((r) => r.bundle_hash);
      expect(anchored.length).toBeGreaterThanOrEqual(1);
      expect(new Set(anchored).size).toBe(anchored.length);
      for (const hash of anchored) {
        expect(stored.some((c) => `sha256:${hex(c.root)}` === hash)).toBe(true);
      }
    } finally {
      for (const app of apps) await app.close();
      for (const dir of dirs) await dir.remove();
    }
  });
});
