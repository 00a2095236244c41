// The C2SP tlog-tiles read API over HTTP on SQLite and PostgreSQL, checked with the core tiles client and
// the RFC 9162 reference of @proto/testing. Issue 18 item 1.

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  consistencyProofFromTiles,
  inclusionProofFromTiles,
  rootFromTiles,
  type TileFetcher,
  tilePath,
} from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { referenceConsistency, referenceLeafHashes, referencePath, referenceRoot } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from './test-support.ts';

const SIZE = 600;
const CLI = fileURLToPath(new URL('../../../packages/cli/src/main.ts', import.meta.url));
const run = promisify(execFile);

describe.each(dialectsUnderTest())('tlog-tiles read API on %s', (dialect: StoreDialect) => {
  let target: StoreTarget;
  let app: FastifyInstance;
  let removeDir: () => Promise<void>;
  const raw: Uint8Array[] = [];

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'tlog-tiles');
    const temp = await tempDataDir('tiles');
    removeDir = temp.remove;
    app = await buildTestLog(temp.dir, {}, target.fresh('tiles'), { timers: false });
    for (let start = 0; start < SIZE; start += 50) {
      const batch = Array.from({ length: 50 }, (_, i) => start + i);
      const answers = await Promise.all(
        batch.map((i) =>
          app.inject({
            method: 'POST',
            url: '/add',
            payload: { bundle_hash: bundleHash(i) },
            headers: OPERATOR_AUTH,
          }),
        ),
      );
      for (const answer of answers) expect(answer.statusCode).toBe(201);
    }
    const byIndex = new Map<number, Uint8Array>();
    for (let i = 0; i < SIZE; i++) {
      const found = (
        await app.inject({ url: `/lookup?bundle_hash=${encodeURIComponent(bundleHash(i))}` })
      ).json();
      byIndex.set(found.log_index, Buffer.from(bundleHash(i).slice('sha256:'.length), 'hex'));
    }
    for (let i = 0; i < SIZE; i++) raw.push(byIndex.get(i) as Uint8Array);
    // Sign the tree (the timer's round): a full tile is immutable only under a published checkpoint (P355).
    await app.transparencyLog.checkpointer.tick();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await removeDir?.();
    await target?.cleanup();
  });

  const fetchTile: TileFetcher = async (level, index, width) => {
    const answer = await app.inject({ url: `/${tilePath(level, index, width)}` });
    if (answer.statusCode !== 200) throw new Error(`${tilePath(level, index, width)}: ${answer.statusCode}`);
    return answer.rawPayload;
  };

  it('serves hash tiles whose root and proofs equal the RFC 9162 reference', async () => {
    const leafHashes = referenceLeafHashes(raw);
    const root = (await app.inject({ url: '/root' })).json();
    expect(root.tree_size).toBe(SIZE);
    expect(Buffer.from(await rootFromTiles(SIZE, fetchTile)).toString('hex')).toBe(root.root);
    expect(await rootFromTiles(SIZE, fetchTile)).toEqual(referenceRoot(leafHashes));
    for (const index of [0, 255, 256, 511, 512, 599]) {
      const answer = await inclusionProofFromTiles(index, SIZE, fetchTile);
      expect(answer.proof).toEqual(referencePath(index, leafHashes));
    }
    for (const old of [1, 256, 300, 512, 599]) {
      expect(await consistencyProofFromTiles(old, SIZE, fetchTile)).toEqual(
        referenceConsistency(old, leafHashes),
      );
    }
  });

  it('encodes hash tiles as 32-byte hashes and entry bundles as uint16 length-prefixed leaves', async () => {
    const full = await app.inject({ url: '/tile/0/001' });
    expect(full.statusCode).toBe(200);
    expect(full.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(full.rawPayload.length).toBe(256 * 32);
    expect(full.rawPayload.subarray(0, 32)).toEqual(
      Buffer.from(referenceLeafHashes([raw[256] as Uint8Array])[0] as Uint8Array),
    );
    const partial = await app.inject({ url: '/tile/0/002.p/88' });
    expect(partial.statusCode).toBe(200);
    expect(partial.headers['cache-control']).not.toContain('immutable');
    const entries = await app.inject({ url: '/tile/entries/002.p/88' });
    expect(entries.statusCode).toBe(200);
    expect(entries.rawPayload.length).toBe(88 * 34);
    expect(entries.rawPayload.readUInt16BE(0)).toBe(32);
    expect(entries.rawPayload.subarray(2, 34)).toEqual(Buffer.from(raw[512] as Uint8Array));
    const level1 = await app.inject({ url: '/tile/1/000.p/2' });
    expect(level1.rawPayload.subarray(32, 64)).toEqual(
      Buffer.from(referenceRoot(referenceLeafHashes(raw.slice(256, 512)))),
    );
  });

  it('404s tiles beyond the tree and 400s malformed paths, as JSON errors', async () => {
    for (const url of [
      '/tile/0/002',
      '/tile/0/002.p/89',
      '/tile/1/000',
      '/tile/2/000.p/1',
      '/tile/entries/003.p/1',
    ]) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, url).toBe(404);
      expect(answer.json().error.code).toBe('NOT_FOUND');
    }
    for (const url of [
      '/tile/0/2',
      '/tile/0/x000/002',
      '/tile/0/002.p/256',
      '/tile/0/002.p/0',
      '/tile/01/000',
      '/tile/0/../root',
    ]) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(answer.statusCode, url).toBeLessThan(500);
    }
  });

  it('proto log prove --tiles proves inclusion from the served tiles and the checkpoint', async () => {
    await app.transparencyLog.checkpointer.tick();
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const { stdout } = await run(process.execPath, [CLI, 'log', 'prove', '--tiles', url, '--index', '300']);
    const answer = JSON.parse(stdout);
    const leafHashes = referenceLeafHashes(raw);
    expect(answer).toMatchObject({
      verified: true,
      matches_checkpoint: true,
      log_index: 300,
      tree_size: SIZE,
    });
    expect(answer.proof).toEqual(referencePath(300, leafHashes).map((h) => Buffer.from(h).toString('hex')));
    const refused = await run(process.execPath, [
      CLI,
      'log',
      'prove',
      '--tiles',
      url,
      '--index',
      '600',
    ]).catch((error: { code: number }) => error);
    expect((refused as { code: number }).code).toBe(2);
  });
});
