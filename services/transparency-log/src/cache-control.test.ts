// What the log's read routes tell a CDN or proxy in front of it, over real HTTP (P183): an entries range wholly
// below the signed tree size is immutable; a range reaching past it, every answer carrying a signed checkpoint or
// the current tree, and every error must be asked for again (c2sp.org/tlog-tiles: a mutable endpoint SHOULD NOT be
// cached beyond a few seconds).
import { listenOnPort0, type TempDir } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from './test-support.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

let data: TempDir;
let log: FastifyInstance;
let base: string;

async function append(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    const added = await fetch(`${base}/add`, {
      method: 'POST',
      headers: { ...OPERATOR_AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ bundle_hash: bundleHash(i, 'cache') }),
    });
    expect(added.status).toBe(201);
  }
}

/** The status and Cache-Control of GET `path`. */
async function cacheOf(path: string): Promise<{ status: number; cache: string | null }> {
  const answer = await fetch(`${base}${path}`);
  await answer.arrayBuffer();
  return { status: answer.status, cache: answer.headers.get('cache-control') };
}

beforeAll(async () => {
  data = await tempDataDir('cache-control');
  log = await buildTestLog(data.dir, {}, {}, { timers: false });
  base = (await listenOnPort0(log)).url;
  // Signed at 3, committed to 5: entries 3 and 4 are in the tree but under no signed checkpoint yet.
  await append(0, 3);
  await log.transparencyLog.checkpointer.tick();
  await append(3, 5);
});

afterAll(async () => {
  await log?.close();
  await data?.remove();
});

describe('P183: the read routes say how long a cache may keep them', () => {
  it('an entries range wholly below the signed tree size is immutable', async () => {
    expect(await cacheOf('/entries?start=0&end=3')).toEqual({ status: 200, cache: IMMUTABLE });
    expect(await cacheOf('/entries?start=1&end=2')).toEqual({ status: 200, cache: IMMUTABLE });
  });

  it('an entries range reaching past the signed tree size, or shaped by the log, is asked for again', async () => {
    for (const path of [
      '/entries?start=0&end=5', // past the signed size, inside the tree
      '/entries?start=3&end=4', // wholly above the signed size
      '/entries?start=0&end=100', // clamped to the tree: grows as the log does
      '/entries?start=0', // its end is the log's page size and the tree's
      '/entries',
    ]) {
      expect({ path, ...(await cacheOf(path)) }).toEqual({ path, status: 200, cache: REVALIDATE });
    }
  });

  it('once a checkpoint signs past it, the same range becomes immutable', async () => {
    const data2 = await tempDataDir('cache-control-grow');
    const grown = await buildTestLog(data2.dir, {}, {}, { timers: false });
    try {
      const url = (await listenOnPort0(grown)).url;
      for (let i = 0; i < 2; i++) {
        await grown.inject({
          method: 'POST',
          url: '/add',
          payload: { bundle_hash: bundleHash(i, 'grow') },
          headers: OPERATOR_AUTH,
        });
      }
      await grown.transparencyLog.checkpointer.tick();
      const read = async () => (await fetch(`${url}/entries?start=0&end=4`)).headers.get('cache-control');
      expect(await read()).toBe(REVALIDATE);
      for (let i = 2; i < 4; i++) {
        await grown.inject({
          method: 'POST',
          url: '/add',
          payload: { bundle_hash: bundleHash(i, 'grow') },
          headers: OPERATOR_AUTH,
        });
      }
      expect(await read()).toBe(REVALIDATE);
      await grown.transparencyLog.checkpointer.tick();
      expect(await read()).toBe(IMMUTABLE);
    } finally {
      await grown.close();
      await data2.remove();
    }
  });

  it('every answer carrying a signed checkpoint or the current tree is asked for again', async () => {
    const hash = encodeURIComponent(bundleHash(1, 'cache'));
    for (const path of [
      '/root/signed',
      '/checkpoint',
      '/checkpoint?tree_size=3', // a late witness adds its cosignature to the same checkpoint
      '/tlog-proof/1',
      '/tlog-proof/1?tree_size=3',
      `/lookup?bundle_hash=${hash}`,
      `/lookup/${hash}`, // its proof is in the current tree
      '/root',
      '/proof/1',
      '/consistency?first=1',
    ]) {
      expect({ path, ...(await cacheOf(path)) }).toEqual({ path, status: 200, cache: REVALIDATE });
    }
  });

  it('P189: a proof between sizes the log has signed is immutable', async () => {
    for (const path of [
      '/proof/1?tree_size=3', // the signed size itself
      '/proof/0?tree_size=2', // a smaller tree: its root never changes either
      '/consistency?first=1&second=3',
      '/consistency?first=2&second=2',
    ]) {
      expect({ path, ...(await cacheOf(path)) }).toEqual({ path, status: 200, cache: IMMUTABLE });
    }
  });

  it('P189: a proof whose size is absent or beyond the signed size is asked for again', async () => {
    for (const path of [
      '/proof/1', // the current tree
      '/proof/1?tree_size=4', // committed, under no signed checkpoint yet
      '/proof/1?tree_size=5',
      '/consistency?first=1', // second defaults to the current tree
      '/consistency?first=1&second=4',
      '/consistency?first=3&second=5',
    ]) {
      expect({ path, ...(await cacheOf(path)) }).toEqual({ path, status: 200, cache: REVALIDATE });
    }
    for (const path of [
      '/proof/1?tree_size=9',
      '/consistency?first=1&second=9',
      '/consistency?first=3&second=2',
    ]) {
      expect({ path, ...(await cacheOf(path)) }).toMatchObject({ path, cache: REVALIDATE });
    }
  });

  it('P189: HEAD answers with the headers of GET, and revalidates the same way', async () => {
    const head = async (path: string, ifNoneMatch?: string) => {
      const answer = await fetch(`${base}${path}`, {
        method: 'HEAD',
        headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch },
      });
      return {
        status: answer.status,
        cache: answer.headers.get('cache-control'),
        etag: answer.headers.get('etag'),
        length: answer.headers.get('content-length'),
        body: await answer.text(),
      };
    };
    for (const [path, cache] of [
      ['/tile/0/000.p/3', 'public, max-age=5'], // the partial tile of the three signed leaves
      ['/tile/entries/000.p/3', 'public, max-age=5'],
      // Leaves 3 and 4 are committed but not signed: a restore could rewrite them (P355).
      ['/tile/0/000.p/5', REVALIDATE],
      ['/tile/entries/000.p/5', REVALIDATE],
      ['/checkpoint', REVALIDATE],
    ] as const) {
      const got = await fetch(`${base}${path}`);
      const bytes = Buffer.from(await got.arrayBuffer());
      const headed = await head(path);
      expect({ path, ...headed }).toEqual({
        path,
        status: 200,
        cache,
        etag: got.headers.get('etag'),
        length: String(bytes.length),
        body: '',
      });
      expect(headed.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      expect({ path, ...(await head(path, headed.etag as string)) }).toEqual({
        path,
        status: 304,
        cache,
        etag: headed.etag,
        length: String(bytes.length), // RFC 9110 §8.6: a 304 may say the length of the 200
        body: '',
      });
      const revalidated = await fetch(`${base}${path}`, {
        headers: { 'if-none-match': headed.etag as string },
      });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.get('content-length')).toBeNull();
      expect(await revalidated.text()).toBe('');
    }
    expect(await head('/proof/9')).toEqual({
      status: 404,
      cache: REVALIDATE,
      etag: null,
      length: expect.any(String),
      body: '',
    });
  });

  it('an error is never kept: what is not there yet may be there at the next request', async () => {
    const absent = encodeURIComponent(bundleHash(99, 'cache'));
    for (const [path, status] of [
      ['/tlog-proof/4', 404], // committed, not yet under a signed checkpoint
      [`/lookup?bundle_hash=${absent}`, 404],
      [`/lookup/${absent}`, 404],
      ['/checkpoint?tree_size=4', 404],
      ['/entries?start=2&end=1', 400],
      ['/proof/9', 404],
      ['/tile/0/000', 404], // the full tile exists once the tree reaches 256
      ['/tile/0/x', 400],
    ] as const) {
      expect({ path, ...(await cacheOf(path)) }).toEqual({ path, status, cache: REVALIDATE });
    }
  });
});
