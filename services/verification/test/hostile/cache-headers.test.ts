// What a CDN or proxy in front of the verification service may keep, and for how long (P195). Who controls the
// input: any client, through the cache an operator puts in front of the service. Without a Cache-Control a cache
// applies its own heuristic lifetime to a 200 or a 404; with `public, max-age=300` on the capabilities document a
// setting the verifier dropped was still promised for five minutes. The real service, over HTTP.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordsConfig, mountRecords } from '../../src/records/plugin.ts';
import { type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let dataDir: string;
let running: RunningApp;
let capabilitiesPath: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'cache-headers-'));
  const mounted = await mountRecords(loadRecordsConfig({ DATA_DIR: dataDir }));
  running = await startApp({ VERIFY_WORKERS: '1' }, [mounted]);
  capabilitiesPath = running.app.protocolProfile.wellKnown.capabilities;
});
afterAll(async () => {
  await running?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function ask(path: string, init: RequestInit = {}) {
  const answer = await fetch(`${running.url}${path}`, { redirect: 'manual', ...init });
  await answer.arrayBuffer();
  return {
    path,
    status: answer.status,
    cache: answer.headers.get('cache-control'),
    etag: answer.headers.get('etag'),
    vary: answer.headers.get('vary'),
  };
}

describe('Cache-Control on every answer of the verification service', () => {
  it('probes are never stored: /health, /ready, /metrics', async () => {
    for (const path of ['/health', '/ready', '/metrics']) {
      expect(await ask(path)).toMatchObject({ path, status: 200, cache: 'no-store' });
    }
  });

  it('errors are never stored: unknown paths, a bad method, bad bodies, a bad id', async () => {
    const answers = [
      await ask('/no-such-route'),
      await ask('/verify'),
      await ask('/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }),
      await ask('/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      await ask('/anchor', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bundle_hash: `sha256:${'a'.repeat(64)}` }),
      }),
    ];
    for (const answer of answers) {
      expect(answer.status, answer.path).toBeGreaterThanOrEqual(400);
      expect(answer.cache, `${answer.path} ${answer.status}`).toBe('no-store');
    }
  });

  it('the capabilities document is revalidated before each use, with a strong ETag and a 304', async () => {
    const first = await ask(capabilitiesPath);
    expect(first).toMatchObject({ status: 200, cache: 'no-cache' });
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const again = await ask(capabilitiesPath, { headers: { 'if-none-match': first.etag ?? '' } });
    expect(again).toMatchObject({ status: 304, cache: 'no-cache', etag: first.etag });
    const listed = await ask(capabilitiesPath, { headers: { 'if-none-match': `"other", W/${first.etag}` } });
    expect(listed.status).toBe(304);
    const other = await ask(capabilitiesPath, { headers: { 'if-none-match': '"other"' } });
    expect(other).toMatchObject({ status: 200, etag: first.etag });
    // CBOR is other bytes, so another tag; the answer says it depends on Accept.
    const cbor = await ask(capabilitiesPath, { headers: { accept: 'application/cbor' } });
    expect(cbor).toMatchObject({ status: 200, cache: 'no-cache' });
    expect(cbor.etag).not.toBe(first.etag);
    expect(cbor.vary).toContain('Accept');
    const cborAgain = await ask(capabilitiesPath, {
      headers: { accept: 'application/cbor', 'if-none-match': cbor.etag ?? '' },
    });
    expect(cborAgain.status).toBe(304);
  });

  it('/v2 reads stay no-store (D17): a record, a key, found or not', async () => {
    const missingKey = await ask(`/v2/keys/${'0'.repeat(32)}`);
    expect(missingKey).toMatchObject({ status: 404, cache: 'no-store' });
    const missingRecord = await ask('/v2/dispute/record/dispute:not-there-0001');
    expect(missingRecord).toMatchObject({ status: 404, cache: 'no-store' });
    const badKid = await ask('/v2/keys/NOT-A-KID');
    expect(badKid).toMatchObject({ status: 400, cache: 'no-store' });

    const { signed_bundle: bundle, agentKid } = sampleBundle({});
    const verified = await fetch(`${running.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signed_bundle: bundle }),
    });
    expect(verified.status).toBe(200);
    // A verdict is no answer to a later request: revalidated, never reused as it stands.
    expect(verified.headers.get('cache-control')).toBe('no-cache');
    await verified.arrayBuffer();
    let key = await ask(`/v2/keys/${agentKid}`);
    for (let i = 0; i < 100 && key.status === 404; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      key = await ask(`/v2/keys/${agentKid}`);
    }
    expect(key).toMatchObject({ status: 200, cache: 'no-store' });
  });

  it('the console and the API documents are revalidated before each use', async () => {
    for (const path of ['/', '/console/config.json', '/docs/json']) {
      expect(await ask(path)).toMatchObject({ path, status: 200, cache: 'no-cache' });
    }
    const docs = await ask('/docs');
    expect(docs.status).toBeLessThan(400);
    expect(docs.cache).toBe('no-cache');
    // The console's own missing file: its scope answers `no-cache` for everything it serves (P183's reading).
    const missing = await ask('/console/no-such-module.js');
    expect(missing.status).toBe(404);
    expect(['no-store', 'no-cache']).toContain(missing.cache);
  });
});
