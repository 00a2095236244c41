// Hostile requests against the operator's floor and the rate limits, over a listening server.
// Issue 12 rows d (V1 below the floor), f (X-Forwarded-For spellings), g (Redis down); D10, D11, D17.
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let v1Request: { signed_bundle: unknown };

beforeAll(() => {
  v1Request = { signed_bundle: sampleBundle({ version: '1.0', entries: 2 }).signed_bundle };
});

async function capabilities(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/.well-known/proto-capabilities.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("row d: V1 bundles never pass below the operator's floor", () => {
  it.each([['pq_only'], ['hybrid_required']])('%s refuses a V1 bundle by default (E003)', async (mode) => {
    const running = await startApp({ VERIFIER_MODE: mode });
    try {
      const answer = await postVerify(running.url, v1Request);
      expect(answer.status).toBe(200);
      expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(false);
      expect(answer.json['error_details']).toEqual(
        expect.arrayContaining([expect.objectContaining({ code: 'PROTO-E003' })]),
      );
      expect(await capabilities(running.url)).toMatchObject({
        supported_versions: ['2.0'],
        min_accepted_version: '2.0',
        verifier_mode: mode,
      });
    } finally {
      await running.close();
    }
  });

  it('pq_only refuses to boot with ALLOW_V1_BUNDLES=true (a V1 bundle is Ed25519 only)', async () => {
    await expect(startApp({ VERIFIER_MODE: 'pq_only', ALLOW_V1_BUNDLES: 'true' })).rejects.toThrow(
      /ALLOW_V1_BUNDLES/,
    );
  });

  it('hybrid_required accepts V1 only with ALLOW_V1_BUNDLES=true set explicitly', async () => {
    const running = await startApp({ VERIFIER_MODE: 'hybrid_required', ALLOW_V1_BUNDLES: 'true' });
    try {
      const answer = await postVerify(running.url, v1Request);
      expect(answer.json, JSON.stringify(answer.json)).toMatchObject({ verified: true, version: '1.0' });
      expect(await capabilities(running.url)).toMatchObject({
        supported_versions: ['1.0', '2.0'],
        min_accepted_version: '1.0',
      });
    } finally {
      await running.close();
    }
  });

  it('hybrid_preferred still accepts V1 by default (below hybrid_required)', async () => {
    const running = await startApp({ VERIFIER_MODE: 'hybrid_preferred' });
    try {
      const answer = await postVerify(running.url, v1Request);
      expect(answer.json, JSON.stringify(answer.json)).toMatchObject({ verified: true, version: '1.0' });
    } finally {
      await running.close();
    }
  });
});

/** Posts an invalid body (cheap: 400 before any verification) from the given forwarded address. */
async function postFrom(url: string, forwardedFor: string): Promise<number> {
  const res = await fetch(`${url}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: '{}',
  });
  await res.arrayBuffer();
  return res.status;
}

describe('row f: one client, many spellings of its address, one budget', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp({ TRUST_PROXY: '127.0.0.1', VERIFY_RATE_LIMIT_PER_MINUTE: '4' });
  });
  afterAll(() => running.close());

  it('spellings and addresses of one IPv6 /64 share a budget, and the 429 comes', async () => {
    const spellings = [
      '2001:db8::1',
      '2001:DB8::1',
      '2001:db8:0::1',
      '2001:0db8:0000:0000:0000:0000:0000:0001',
      '2001:db8::ffff:1234:5678:9abc',
    ];
    const statuses: number[] = [];
    for (const address of spellings) statuses.push(await postFrom(running.url, address));
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    // Another /64 has its own budget.
    expect(await postFrom(running.url, '2001:db8:0:1::1')).toBe(400);
  });

  it('an IPv4-mapped IPv6 address counts as its IPv4 address', async () => {
    const statuses: number[] = [];
    for (const address of ['192.0.2.7', '::ffff:192.0.2.7', '::FFFF:c000:0207', '192.0.2.7', '192.0.2.7']) {
      statuses.push(await postFrom(running.url, address));
    }
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
  });

  it('forwarded values that are not addresses share the forwarding peer budget', async () => {
    const junk = await startApp({ TRUST_PROXY: '127.0.0.1', VERIFY_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const statuses: number[] = [];
      for (const value of ['junk-1', 'junk-2', 'unknown', '1.2.3'])
        statuses.push(await postFrom(junk.url, value));
      expect(statuses).toEqual([400, 400, 400, 429]);
    } finally {
      await junk.close();
    }
  });

  it('X-Forwarded-For from an untrusted peer is ignored (the peer address counts)', async () => {
    const direct = await startApp({ TRUST_PROXY: '10.9.9.9', VERIFY_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) statuses.push(await postFrom(direct.url, `198.51.100.${i + 1}`));
      expect(statuses).toEqual([400, 400, 400, 429]);
    } finally {
      await direct.close();
    }
  });
});

describe('row g: Redis unreachable', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp({ REDIS_URL: 'redis://127.0.0.1:1', VERIFY_RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(() => running.close());

  it('the limiter falls back to a per-process budget instead of no limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push(await postFrom(running.url, '203.0.113.5'));
    expect(statuses).toEqual([400, 400, 400, 429, 429]);
  });

  it('/ready reports the degradation, naming the dependency without its raw error', async () => {
    const res = await fetch(`${running.url}/ready`);
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(200);
    expect(body['status']).toBe('degraded');
    expect(body['checks']).toMatchObject({ 'rate-limit-store': 'degraded' });
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|redis:\/\//);
  });
});

describe('row g: Redis accepts connections but never answers', () => {
  it('keeps the limit, and costs at most one slow request per failover pause', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const running = await startApp({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      VERIFY_RATE_LIMIT_PER_MINUTE: '3',
    });
    try {
      const started = performance.now();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) statuses.push(await postFrom(running.url, '203.0.113.9'));
      const elapsed = performance.now() - started;
      expect(statuses).toEqual([400, 400, 400, 429, 429]);
      // One command timeout (1 s), then the per-process budget answers at once.
      expect(elapsed).toBeLessThan(3000);
      const ready = await fetch(`${running.url}/ready`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { status: string }).status).toBe('degraded');
    } finally {
      await running.close();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
