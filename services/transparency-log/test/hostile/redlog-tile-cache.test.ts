// A tile over leaves that no published checkpoint covers yet must not be cached as immutable: until the log signs
// them, a restore from backup may lose and rewrite those leaves (P183's rule for /entries), and a CDN would keep the
// year-long copy of the old bytes. Brief "redlog"; P355.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from '../../src/test-support.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';

let app: FastifyInstance;
let url: string;
let removeDir: () => Promise<unknown>;

beforeAll(async () => {
  const temp = await tempDataDir('redlog-tile-cache');
  removeDir = temp.remove;
  // No timers: nothing past the empty tree is signed until the test runs a checkpoint round.
  app = await buildTestLog(temp.dir, {}, {}, { timers: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  for (let start = 0; start < 256; start += 32) {
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        fetch(`${url}/add`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...OPERATOR_AUTH },
          body: JSON.stringify({ bundle_hash: bundleHash(start + i, 'redlog-tile-cache') }),
        }),
      ),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(201);
      await answer.arrayBuffer();
    }
  }
}, 60_000);
afterAll(async () => {
  await app?.close();
  await removeDir?.();
});

async function cacheControl(path: string): Promise<string | null> {
  const response = await fetch(`${url}${path}`);
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return response.headers.get('cache-control');
}

describe('P355: tiles over unsigned leaves', () => {
  it('a full tile and an entry bundle above the signed size are revalidated, and immutable once signed', async () => {
    // 256 leaves are committed, none is under a published checkpoint yet.
    const root = (await (await fetch(`${url}/root`)).json()) as { tree_size: number };
    expect(root.tree_size).toBe(256);
    expect(await cacheControl('/tile/0/000')).toBe('no-cache');
    expect(await cacheControl('/tile/entries/000')).toBe('no-cache');
    // A partial tile over unsigned leaves is not given a lifetime either.
    expect(await cacheControl('/tile/0/000.p/10')).toBe('no-cache');

    // The checkpoint round (the timer's, here run by hand) signs size 256: the same tiles are now fixed for good.
    await app.transparencyLog.checkpointer.tick();
    const checkpoint = await fetch(`${url}/checkpoint`);
    expect(checkpoint.status).toBe(200);
    expect((await checkpoint.text()).split('\n')[1]).toBe('256');
    expect(await cacheControl('/tile/0/000')).toBe(IMMUTABLE);
    expect(await cacheControl('/tile/entries/000')).toBe(IMMUTABLE);
    expect(await cacheControl('/tile/0/000.p/10')).toBe('public, max-age=5');
  });
});
