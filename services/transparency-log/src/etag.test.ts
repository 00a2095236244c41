// A CDN revalidating the log's no-cache answers, over real HTTP (P189): /checkpoint, /root/signed and /root carry a
// strong ETag of their exact bytes and answer a matching If-None-Match with 304 and no body; a grown log or a late
// witness's cosignature changes the bytes, so the tag. RFC 9110 §8.8.3, §13.1.2; c2sp.org/tlog-tiles.
import { listenOnPort0, type TempDir } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  appendHashes,
  logWitnessesEnv,
  type RunningWitness,
  startWitness,
  testLogIdentity,
} from './test-helpers.ts';
import { buildTestLog, bundleHash, tempDataDir } from './test-support.ts';

const STRONG_TAG = /^"[A-Za-z0-9_-]{43}"$/;
const PATHS = ['/checkpoint', '/root/signed', '/root'] as const;

interface Seen {
  readonly status: number;
  readonly etag: string | null;
  readonly cache: string | null;
  readonly body: string;
}

async function get(base: string, path: string, ifNoneMatch?: string): Promise<Seen> {
  const answer = await fetch(`${base}${path}`, {
    headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch },
  });
  return {
    status: answer.status,
    etag: answer.headers.get('etag'),
    cache: answer.headers.get('cache-control'),
    body: await answer.text(),
  };
}

const hashes = (from: number, n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => bundleHash(from + i, tag));

describe('P189: the tree head answers carry a validator a CDN can revalidate with', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  let data: TempDir;
  let log: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    data = await tempDataDir('etag');
    log = await buildTestLog(data.dir, {}, {}, { timers: false });
    base = (await listenOnPort0(log)).url;
    await appendHashes(log, hashes(0, 3, 'etag'));
    await log.transparencyLog.checkpointer.tick();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });
  afterAll(async () => {
    await log?.close();
    await data?.remove();
  });

  it('200 with a strong tag of the bytes; the same tag back is a 304 without a body, still no-cache', async () => {
    for (const path of PATHS) {
      const first = await get(base, path);
      expect({ path, status: first.status, etag: first.etag }).toEqual({
        path,
        status: 200,
        etag: expect.stringMatching(STRONG_TAG),
      });
      const again = await get(base, path);
      expect(again.etag).toBe(first.etag);
      const revalidated = await get(base, path, first.etag as string);
      expect({ path, ...revalidated }).toEqual({
        path,
        status: 304,
        etag: first.etag,
        cache: 'no-cache',
        body: '',
      });
      // Weak comparison (RFC 9110 §13.1.2): a tag in a list, or weakened by an intermediary, still matches.
      expect((await get(base, path, `"other", W/${first.etag}`)).status).toBe(304);
      expect((await get(base, path, '*')).status).toBe(304);
      expect((await get(base, path, '"other"')).status).toBe(200);
    }
  });

  it('a grown and signed log answers 200 with a new tag to the old one', async () => {
    const before = new Map<string, string>();
    for (const path of PATHS) before.set(path, (await get(base, path)).etag as string);
    await appendHashes(log, hashes(3, 2, 'etag'));
    await log.transparencyLog.checkpointer.tick();
    for (const path of PATHS) {
      const old = before.get(path) as string;
      const grown = await get(base, path, old);
      expect({ path, status: grown.status }).toEqual({ path, status: 200 });
      expect(grown.etag).toMatch(STRONG_TAG);
      expect(grown.etag).not.toBe(old);
      expect((await get(base, path, grown.etag as string)).status).toBe(304);
    }
  });

  it('a late witness cosigning the same checkpoint changes its bytes, so its tag', async () => {
    const identity = testLogIdentity('log.test/etag-late');
    const dir = async (label: string) => {
      const made = await tempDataDir(label);
      cleanups.push(() => made.remove());
      return made.dir;
    };
    const w1: RunningWitness = await startWitness(await dir('etag-w1'), 'witness.test/etag-w1', [identity]);
    cleanups.push(() => w1.close());
    const lateDir = await dir('etag-w2');
    const down = await startWitness(lateDir, 'witness.test/etag-w2', [identity]);
    const { port, url, vkey } = down;
    await down.close();
    const witnessed = await buildTestLog(
      await dir('etag-witnessed'),
      {
        ...identity.env,
        LOG_WITNESSES: logWitnessesEnv([w1, { url, vkey }]),
        LOG_WITNESS_QUORUM: '1',
        LOG_WITNESS_TIMEOUT_MS: '2000',
      },
      {},
      { timers: false },
    );
    cleanups.push(() => witnessed.close());
    const at = (await listenOnPort0(witnessed)).url;
    await appendHashes(witnessed, hashes(0, 2, 'etag-late'));
    await witnessed.transparencyLog.checkpointer.tick();
    const one = await get(at, '/checkpoint');
    const oneSigned = await get(at, '/root/signed');
    expect(one.status).toBe(200);
    expect((await get(at, '/checkpoint', one.etag as string)).status).toBe(304);

    const late = await startWitness(lateDir, 'witness.test/etag-w2', [identity], { port });
    cleanups.push(() => late.close());
    await witnessed.transparencyLog.checkpointer.tick();
    const both = await get(at, '/checkpoint', one.etag as string);
    expect(both.status).toBe(200);
    expect(both.body.split('\n')[1]).toBe('2'); // the same size, one signature line more
    expect(both.body.length).toBeGreaterThan(one.body.length);
    expect(both.etag).toMatch(STRONG_TAG);
    expect(both.etag).not.toBe(one.etag);
    const bothSigned = await get(at, '/root/signed', oneSigned.etag as string);
    expect(bothSigned.status).toBe(200);
    expect(bothSigned.etag).not.toBe(oneSigned.etag);
  });

  it('an error carries no tag, so a 404 is never turned into a 304', async () => {
    const missing = await get(base, '/checkpoint?tree_size=4');
    expect(missing).toMatchObject({ status: 404, etag: null, cache: 'no-cache' });
    expect((await get(base, '/checkpoint?tree_size=4', '*')).status).toBe(404);
  });
});
