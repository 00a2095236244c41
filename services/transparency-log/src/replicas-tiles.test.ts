// Two log replicas on one database, each listening on its own port, taking parallel POST /add over real HTTP
// while both sign: every signed checkpoint either replica serves matches the hash tiles the other serves, and
// the entry tiles hold each leaf exactly once, with no gap. Brief "races" item 2; D18; docs/architecture.md §4.
import { encodeBase64, rootFromTiles, selectCryptoBackend, type TileFetcher, tilePath } from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { type ListeningApp, listenOnPort0 } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from './test-support.ts';

const DISTINCT = 300;

function tilesOf(url: string): TileFetcher {
  return async (level, index, width) => {
    const res = await fetch(`${url}/${tilePath(level, index, width)}`);
    if (res.status !== 200) throw new Error(`${tilePath(level, index, width)}: ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
}

/** The leaves of an entry bundle: uint16 big-endian length, then the leaf. */
function leavesOf(bundle: Uint8Array): string[] {
  const leaves: string[] = [];
  for (let at = 0; at < bundle.length; ) {
    const length = ((bundle[at] as number) << 8) | (bundle[at + 1] as number);
    leaves.push(Buffer.from(bundle.subarray(at + 2, at + 2 + length)).toString('hex'));
    at += 2 + length;
  }
  return leaves;
}

describe.each(dialectsUnderTest())(
  'two listening log replicas on one %s database',
  (dialect: StoreDialect) => {
    let target: StoreTarget;
    const replicas: ListeningApp<FastifyInstance>[] = [];
    const removals: Array<() => Promise<void>> = [];

    beforeAll(async () => {
      target = await createStoreTarget(dialect, 'tlog-replica-tiles');
      const backend = selectCryptoBackend();
      const env = {
        LOG_ED25519_KEY: encodeBase64(backend.generateKeyPair('ed25519').secretKey),
        LOG_MLDSA_KEY: encodeBase64(backend.generateKeyPair('ml-dsa-65').secretKey),
        BATCH_MAX: '16',
      };
      const shared = target.fresh('tiles');
      for (const label of ['a', 'b']) {
        const dir = await tempDataDir(`replica-tiles-${label}`);
        removals.push(dir.remove);
        replicas.push(await listenOnPort0(await buildTestLog(dir.dir, env, shared, { timers: false })));
      }
    });
    afterAll(async () => {
      for (const replica of replicas) await replica.close();
      for (const remove of removals) await remove();
      await target?.cleanup();
    });

    it('serve checkpoints that match the tiles, and each leaf once with no gap', async () => {
      const [a, b] = replicas as [ListeningApp<FastifyInstance>, ListeningApp<FastifyInstance>];
      const hashes = Array.from({ length: DISTINCT }, (_, i) => bundleHash(i, 'replica-tiles'));
      const adds: Array<Promise<{ hash: string; status: number; index: number }>> = [];
      hashes.forEach((hash, i) => {
        // Every fourth hash goes to both replicas at once; the rest alternate.
        for (const replica of i % 4 === 0 ? [a, b] : [i % 2 === 0 ? a : b]) {
          adds.push(
            fetch(`${replica.url}/add`, {
              method: 'POST',
              headers: { ...OPERATOR_AUTH, 'content-type': 'application/json' },
              body: JSON.stringify({ bundle_hash: hash }),
            }).then(async (res) => ({
              hash,
              status: res.status,
              index: ((await res.json()) as { log_index: number }).log_index,
            })),
          );
        }
      });
      const mismatches: string[] = [];
      let checked = 0;
      let adding = true;
      const all = Promise.all(adds).finally(() => {
        adding = false;
      });
      // While the appends run, both replicas sign, and each signed checkpoint is checked against the other's tiles.
      const signing = (async () => {
        for (let round = 0; adding || round < 2; round++) {
          await Promise.all(replicas.map((r) => r.app.transparencyLog.checkpointer.tick()));
          for (const [served, other] of [
            [a, b],
            [b, a],
          ] as const) {
            const signed = (await (await fetch(`${served.url}/root/signed`)).json()) as {
              root: string;
              tree_size: number;
            };
            if (signed.tree_size === 0) continue;
            const fromTiles = Buffer.from(await rootFromTiles(signed.tree_size, tilesOf(other.url))).toString(
              'hex',
            );
            checked++;
            if (fromTiles !== signed.root)
              mismatches.push(`size ${signed.tree_size}: checkpoint ${signed.root}, tiles ${fromTiles}`);
          }
        }
      })();
      const answers = await all;
      await signing;
      // Every append has answered: one more round signs them all.
      await Promise.all(replicas.map((r) => r.app.transparencyLog.checkpointer.tick()));

      expect(answers.every((r) => r.status === 200 || r.status === 201)).toBe(true);
      expect(answers.filter((r) => r.status === 201)).toHaveLength(DISTINCT);
      const indexOf = new Map<string, number>();
      for (const answer of answers) {
        expect(indexOf.get(answer.hash) ?? answer.index, answer.hash).toBe(answer.index);
        indexOf.set(answer.hash, answer.index);
      }
      expect(checked).toBeGreaterThan(2);
      expect(mismatches).toEqual([]);

      // The entry tiles of the final signed size: each hash exactly once, at the index its POST answered.
      const signed = (await (await fetch(`${b.url}/root/signed`)).json()) as { tree_size: number };
      expect(signed.tree_size).toBe(DISTINCT);
      const leaves: string[] = [];
      for (let tile = 0; tile * 256 < DISTINCT; tile++) {
        const width = Math.min(256, DISTINCT - tile * 256);
        const partial = width < 256 ? `.p/${width}` : '';
        const res = await fetch(`${a.url}/tile/entries/${String(tile).padStart(3, '0')}${partial}`);
        expect(res.status).toBe(200);
        leaves.push(...leavesOf(new Uint8Array(await res.arrayBuffer())));
      }
      expect(leaves).toHaveLength(DISTINCT);
      leaves.forEach((leaf, index) => {
        expect(indexOf.get(`sha256:${leaf}`), `leaf ${index}`).toBe(index);
      });
    });
  },
);
