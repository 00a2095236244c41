// What a CDN or proxy in front of the revocation service may keep, and for how long (P195). Who controls the
// input: any client, through the cache an operator puts in front of the service. The list keeps its own
// `public, max-age` bounded by next_update (D20); the attestation keys were `public, max-age=LIST_MAX_AGE_S`, so a
// key the operator retired stayed published for minutes; a "not revoked" 404 or a probe had no header at all,
// so a cache's heuristic lifetime applied. The real service, over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RunningService, revoke, startService, TOKEN } from '../../src/test-support.ts';

let service: RunningService;

beforeAll(async () => {
  service = await startService({ timer: false, env: { LIST_VALIDITY_S: '120', LIST_MAX_AGE_S: '300' } });
});
afterAll(async () => {
  await service?.close();
});

async function ask(path: string, headers: Record<string, string> = {}) {
  const answer = await fetch(`${service.url}${path}`, { headers, redirect: 'manual' });
  await answer.arrayBuffer();
  return {
    path,
    status: answer.status,
    cache: answer.headers.get('cache-control'),
    etag: answer.headers.get('etag'),
  };
}

const operator = { authorization: `Bearer ${TOKEN}` };

describe('Cache-Control on every answer of the revocation service', () => {
  it('probes are never stored: /health, /ready, /metrics', async () => {
    for (const path of ['/health', '/ready', '/metrics']) {
      expect(await ask(path)).toMatchObject({ path, status: 200, cache: 'no-store' });
    }
  });

  it('the list keeps its own lifetime, never past next_update, on the 200 and the 304', async () => {
    const listPath = service.app.protocolProfile.wellKnown.revocations;
    const first = await ask(listPath);
    expect(first.status).toBe(200);
    // must-revalidate (P212): once stale, a cache may not serve the list without asking, even cut off from the
    // service (RFC 9111 §5.2.2.2): a list past its lifetime may lack the revocation that made it change.
    const maxAge = Number(/^public, max-age=(\d+), must-revalidate$/.exec(first.cache ?? '')?.[1]);
    // LIST_VALIDITY_S 120 < LIST_MAX_AGE_S 300: next_update bounds it.
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(120);
    const again = await ask(listPath, { 'if-none-match': first.etag ?? '' });
    expect(again.status).toBe(304);
    expect(again.cache).toMatch(/^public, max-age=\d+, must-revalidate$/);
    // The list's tag is the kit's strong tag of the exact bytes, as every other document's (P212).
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
  });

  it('the attestation keys are revalidated before each use, with a strong ETag and a 304', async () => {
    const path = service.app.protocolProfile.wellKnown.attestationKeys;
    const first = await ask(path);
    expect(first).toMatchObject({ status: 200, cache: 'no-cache' });
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(await ask(path, { 'if-none-match': first.etag ?? '' })).toMatchObject({
      status: 304,
      cache: 'no-cache',
      etag: first.etag,
    });
    expect(await ask(path, { 'if-none-match': '"other"' })).toMatchObject({ status: 200, etag: first.etag });
  });

  it('a per-agent look-up: "not revoked" is never stored, "revoked" is revalidated before each use', async () => {
    const agent = 'did:web:agent.example:cache-headers';
    expect(await ask(`/revocations/${encodeURIComponent(agent)}`, operator)).toMatchObject({
      status: 404,
      cache: 'no-store',
    });
    expect(await ask(`/revocations/${encodeURIComponent(agent)}`)).toMatchObject({
      status: 401,
      cache: 'no-store',
    });
    const revoked = await revoke(service, agent);
    expect(revoked.status).toBe(201);
    expect(revoked.headers.get('cache-control')).toBe('no-cache');
    expect(await ask(`/revocations/${encodeURIComponent(agent)}`, operator)).toMatchObject({
      status: 200,
      cache: 'no-cache',
    });
  });

  it('errors are never stored; the console is revalidated', async () => {
    expect(await ask('/no-such-route')).toMatchObject({ status: 404, cache: 'no-store' });
    const refused = await call(service, 'POST', '/revocations', { agent_id: 'did:web:x.example:a' }, null);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    const invalid = await call(service, 'POST', '/revocations', { agent_id: 'did:web:x.example:a' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('cache-control')).toBe('no-store');
    for (const path of ['/', '/console/config.json']) {
      expect(await ask(path)).toMatchObject({ path, status: 200, cache: 'no-cache' });
    }
  });
});
