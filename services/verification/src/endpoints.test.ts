// /health, the capabilities document, POST /anchor forwarding, saturation of the worker pool, the
// dcp-ai profile and the extra-plugin hook. SPEC.md endpoints, PROTOCOL §8.1, docs/architecture.md §3.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilitiesDocument } from './routes/capabilities.ts';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

describe('GET /health and the capabilities document', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp({ CRYPTO_BACKEND: 'noble' });
  });
  afterAll(() => running.close());

  it('reports liveness with the service, profile and crypto backend', async () => {
    const res = await fetch(`${running.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      service: 'verification',
      version: '2.0.3',
      profile: 'proto',
      crypto_backend: 'noble',
      uptime_s: expect.any(Number),
    });
  });

  it('serves the capabilities of the running configuration at the profile path', async () => {
    const res = await fetch(`${running.url}/.well-known/proto-capabilities.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as CapabilitiesDocument;
    expect(doc['supported_versions']).toEqual(['1.0', '2.0']);
    expect(doc['supported_algs']['signing']).toEqual(['ed25519', 'ml-dsa-65']);
    expect(doc['supported_algs']['hash']).toEqual(expect.arrayContaining(['sha256']));
    expect(doc['supported_wire_formats']).toEqual(['json', 'cbor']);
    expect(doc['crypto_backend']).toBe('noble');
    expect(doc['verifier_mode']).toBe('hybrid_preferred');
    // P557: VERIFIER_POLICY's require_principal_signature, off by default (P502).
    expect(doc['require_principal_signature']).toBe(false);
    // Features this instance does not serve are false (no /v2 routes, no revocation lists, no A2A).
    expect(doc['features']).toEqual({
      composite_signatures: true,
      pq_checkpoints: true,
      dual_hash_chains: true,
      a2a_protocol: false,
      emergency_revocation: false,
      lifecycle_management: false,
      digital_succession: false,
      dispute_resolution: false,
      rights_framework: false,
      personal_representation: false,
    });
  });

  it('drops V1 from supported_versions when ALLOW_V1_BUNDLES=false, and follows the dcp-ai profile', async () => {
    const other = await startApp({ ALLOW_V1_BUNDLES: 'false', PROTOCOL_PROFILE: 'dcp-ai' });
    try {
      expect((await fetch(`${other.url}/.well-known/proto-capabilities.json`)).status).toBe(404);
      const doc = (await (await fetch(`${other.url}/.well-known/dcp-capabilities.json`)).json()) as Record<
        string,
        unknown
      >;
      expect(doc['supported_versions']).toEqual(['2.0']);
      expect(doc['profile']).toBe('dcp-ai');
      const bad = await postVerify(other.url, '{');
      expect(bad.json['error_details']).toEqual([expect.objectContaining({ code: 'DCP-E001' })]);
      const metrics = await (await fetch(`${other.url}/metrics`)).text();
      // One metric namespace for every profile; the profile is a build_info label (issue 16).
      expect(metrics).toMatch(/^proto_verification_errors_total\{code="DCP-E001"\} 1$/m);
      expect(metrics).toMatch(/^proto_build_info\{service="verification",profile="dcp-ai",/m);
    } finally {
      await other.close();
    }
  });

  it('reports a record area as served once its routes are mounted through extraPlugins', async () => {
    const withRecords = await startApp({}, [
      async (app) => {
        app.post('/v2/lifecycle/commission', async () => ({ ok: true }));
      },
    ]);
    try {
      const doc = (await (
        await fetch(`${withRecords.url}/.well-known/proto-capabilities.json`)
      ).json()) as CapabilitiesDocument;
      expect(doc['features']['lifecycle_management']).toBe(true);
      expect(doc['features']['dispute_resolution']).toBe(false);
    } finally {
      await withRecords.close();
    }
  });
});

describe('POST /anchor', () => {
  it('answers 501 with a clear error when ANCHOR_SERVICE_URL is unset', async () => {
    const running = await startApp();
    try {
      const res = await fetch(`${running.url}/anchor`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bundle_hash: `sha256:${'a'.repeat(64)}`, chain: 'bitcoin' }),
      });
      expect(res.status).toBe(501);
      expect(await res.json()).toEqual({
        error: {
          code: 'NOT_IMPLEMENTED',
          message: expect.stringContaining('ANCHOR_SERVICE_URL'),
          retryable: false,
        },
      });
    } finally {
      await running.close();
    }
  });

  it('forwards to the anchor service with the caller’s Authorization and relays its answer', async () => {
    const seen: { authorization?: string; body?: unknown }[] = [];
    const anchor = Fastify();
    anchor.post('/anchor', async (req, reply) => {
      seen.push({
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        body: req.body,
      });
      if (!req.headers.authorization)
        return reply.code(401).send({ error: { code: 'UNAUTHORIZED', message: 'no', retryable: false } });
      return reply.code(202).send({ anchor_receipt: { chain: 'bitcoin', status: 'pending' } });
    });
    const anchorUrl = await anchor.listen({ port: 0, host: '127.0.0.1' });
    const running = await startApp({ ANCHOR_SERVICE_URL: anchorUrl });
    try {
      const body = { bundle_hash: `sha256:${'b'.repeat(64)}`, chain: 'bitcoin' };
      const ok = await fetch(`${running.url}/anchor`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer operator-token-123456' },
        body: JSON.stringify(body),
      });
      expect(ok.status).toBe(202);
      expect(await ok.json()).toEqual({ anchor_receipt: { chain: 'bitcoin', status: 'pending' } });
      const denied = await fetch(`${running.url}/anchor`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(denied.status).toBe(401);
      expect(seen).toEqual([{ authorization: 'Bearer operator-token-123456', body }, { body }]);
    } finally {
      await running.close();
      await anchor.close();
    }
  });
});

describe('worker pool saturation', () => {
  it('turns away what the queue cannot hold with 503 + Retry-After + E702, while /health stays fast', async () => {
    const running = await startApp({
      VERIFY_WORKERS: '1',
      VERIFY_QUEUE_MAX: '6',
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
    });
    const heavy = JSON.stringify({
      signed_bundle: sampleBundle({ tier: 'maximum', entries: 30 }).signed_bundle,
    });
    try {
      const finishedAt: number[] = [];
      const inflight = Array.from({ length: 24 }, () =>
        fetch(`${running.url}/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: heavy,
        }).then((res) => {
          if (res.status === 200) finishedAt.push(performance.now());
          return res;
        }),
      );
      await new Promise((r) => setTimeout(r, 50));
      const t0 = performance.now();
      const health = await fetch(`${running.url}/health`);
      const healthDone = performance.now();
      const responses = await Promise.all(inflight);
      const statuses = responses.map((r) => r.status);
      expect(health.status).toBe(200);
      // /health does not wait behind the queued verifications (the event loop stays free).
      expect(healthDone - t0).toBeLessThan(1000);
      expect(healthDone).toBeLessThan(Math.max(...finishedAt));
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(5);
      const busy = responses.filter((r) => r.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      expect(busy[0]!.headers.get('retry-after')).toBe('1');
      expect(await busy[0]!.json()).toEqual({
        error: { code: 'PROTO-E702', message: expect.stringContaining('busy'), retryable: true },
      });
      expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
      // Each turned-away request is counted for the pool-saturation alert (issue 16).
      const metrics = await (await fetch(`${running.url}/metrics`)).text();
      expect(metrics).toContain(`\nproto_verify_pool_rejected_total ${busy.length}\n`);
      expect(metrics).toContain('\nproto_verify_pool_queue_max 6\n');
    } finally {
      await running.close();
    }
  });
});
