// GET /lookup, the cross-origin read headers and the explorer page over HTTP, on SQLite and PostgreSQL.
// Issue 17 (console): what the pages rely on, and that writes stay same-origin only.
import { rfc9162LeafHash, verifyRfc9162Inclusion } from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from './test-support.ts';

describe.each(dialectsUnderTest())('console routes of the log on %s', (dialect: StoreDialect) => {
  let target: StoreTarget;
  let app: FastifyInstance;
  let removeDir: () => Promise<void>;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'tlog-console');
    const temp = await tempDataDir('console');
    removeDir = temp.remove;
    app = await buildTestLog(temp.dir, {}, target.fresh('console'), { timers: false });
    for (const i of [0, 1, 2]) {
      const added = await app.inject({
        method: 'POST',
        url: '/add',
        payload: { bundle_hash: bundleHash(i) },
        headers: OPERATOR_AUTH,
      });
      expect(added.statusCode).toBe(201);
    }
  });
  afterAll(async () => {
    await app?.close();
    await removeDir?.();
    await target?.cleanup();
  });

  it('finds a logged bundle hash by value, 404s an unknown one and 400s a malformed one', async () => {
    const found = await app.inject({ url: `/lookup?bundle_hash=${encodeURIComponent(bundleHash(1))}` });
    expect(found.statusCode).toBe(200);
    expect(found.json()).toMatchObject({ log_index: 1, bundle_hash: bundleHash(1) });
    const missing = await app.inject({ url: `/lookup?bundle_hash=${encodeURIComponent(bundleHash(99))}` });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
    for (const bad of ['sha256:XYZ', 'sha1:00', '', `sha256:${'A'.repeat(64)}`]) {
      const answer = await app.inject({ url: `/lookup?bundle_hash=${encodeURIComponent(bad)}` });
      expect(answer.statusCode, bad).toBe(400);
      expect(answer.json().error).toMatchObject({ retryable: false });
    }
    expect((await app.inject({ url: '/lookup' })).statusCode).toBe(400);
  });

  it('GET /lookup/:bundle_hash answers the index and an inclusion proof that checks against the root', async () => {
    const found = await app.inject({ url: `/lookup/${encodeURIComponent(bundleHash(2))}` });
    expect(found.statusCode).toBe(200);
    const body = found.json();
    expect(body).toMatchObject({ log_index: 2, bundle_hash: bundleHash(2) });
    const root = (await app.inject({ url: '/root' })).json();
    expect(body.tree_size).toBeGreaterThanOrEqual(3);
    const proof = await app.inject({ url: `/proof/2?tree_size=${body.tree_size}` });
    // Independent check: the proof in the look-up is the one /proof computes, and it ends at a real root.
    expect(body.proof).toEqual(proof.json().proof);
    expect(body.root).toBe(proof.json().root);
    if (root.tree_size === body.tree_size) expect(body.root).toBe(root.root);
    const leaf = Buffer.from(bundleHash(2).slice('sha256:'.length), 'hex');
    const hex = (value: string) => Buffer.from(value, 'hex');
    expect(
      verifyRfc9162Inclusion(rfc9162LeafHash(leaf), 2, body.tree_size, body.proof.map(hex), hex(body.root)),
    ).toBe(true);
    const unencoded = await app.inject({ url: `/lookup/${bundleHash(2)}` });
    expect(unencoded.statusCode).toBe(200);
    const missing = await app.inject({ url: `/lookup/${encodeURIComponent(bundleHash(99))}` });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
    for (const bad of ['sha256:XYZ', 'sha1:00', `sha256:${'A'.repeat(64)}`, '..%2Froot']) {
      const answer = await app.inject({ url: `/lookup/${encodeURIComponent(bad)}` });
      expect(answer.statusCode, bad).toBe(400);
      expect(answer.json().error).toMatchObject({ retryable: false });
    }
    const cors = await app.inject({
      url: `/lookup/${encodeURIComponent(bundleHash(0))}`,
      headers: { origin: 'http://elsewhere.example' },
    });
    expect(cors.headers['access-control-allow-origin']).toBe('*');
  });

  it('lets any origin read the public routes, but never answers a write with CORS headers', async () => {
    const origin = { origin: 'http://elsewhere.example' };
    for (const url of [
      '/root/signed',
      '/proof/0',
      '/entries?start=0&end=2',
      `/lookup?bundle_hash=${encodeURIComponent(bundleHash(0))}`,
    ]) {
      const answer = await app.inject({ url, headers: origin });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.headers['access-control-allow-origin'], url).toBe('*');
    }
    const write = await app.inject({
      method: 'POST',
      url: '/add',
      payload: { bundle_hash: bundleHash(5) },
      headers: origin,
    });
    expect(write.headers['access-control-allow-origin']).toBeUndefined();
    const page = await app.inject({ url: '/', headers: origin });
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    expect(
      (await app.inject({ url: '/metrics', headers: origin })).headers['access-control-allow-origin'],
    ).toBeUndefined();
  });

  it('serves the explorer at / under a strict CSP, and no file outside the console folder', async () => {
    const page = await app.inject({ url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.body).not.toMatch(/<script>(?!<)|\sstyle=|\son[a-z]+=/i);
    expect((await app.inject({ url: '/console/log/log.js' })).statusCode).toBe(200);
    for (const url of [
      '/console/../package.json',
      '/console/%2e%2e/src/index.ts',
      '/console/..%2fsrc%2findex.ts',
    ]) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(answer.body, url).not.toContain('@proto/console');
    }
  });
});
