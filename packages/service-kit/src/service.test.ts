// End-to-end behaviour of createService over app.inject: error shape, limits, CBOR, metrics, docs, health.
// docs/architecture.md §3/§6, SPEC.md Errors (413 over 1 MB) and Events (metrics), PROTOCOL §8.2 (CBOR).
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeCbor, encodeCbor } from './cbor.ts';
import { loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from './config.ts';
import { httpError } from './http-errors.ts';
import { createService, type ServiceOptions } from './service.ts';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

function config(env: Record<string, string> = {}): SharedConfig {
  return loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, {
    LOG_LEVEL: 'silent',
    PROBE_REUSE_MS: '0',
    ...env,
  });
}

async function build(options: Partial<ServiceOptions> = {}, env: Record<string, string> = {}) {
  const app = await createService({
    name: 'test',
    version: '2.0.3',
    config: config(env),
    rateLimit: false,
    ...options,
  });
  app.post(
    '/echo',
    { schema: { body: { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } } } },
    async (req) => ({
      got: req.body,
    }),
  );
  app.get(
    '/things/:id',
    {
      schema: {
        params: { type: 'object', properties: { id: { type: 'string', pattern: '^[\\w:.\\-]{1,256}$' } } },
      },
    },
    async (req) => req.params,
  );
  app.get('/boom', async () => {
    throw new Error('database password is hunter2 at /srv/secret.ts:42');
  });
  app.get('/conflict', async () => {
    throw httpError('CONFLICT', 'already there', { details: { id: 'x' } });
  });
  app.get('/float', async () => ({ ratio: 0.5 }));
  apps.push(app);
  await app.ready();
  return app;
}

describe('error shape', () => {
  it('answers a body over 1 MB with 413 and a JSON error body', async () => {
    const app = await build();
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ a: 1, pad: 'x'.repeat(1_048_576) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.json()).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('1048576'), retryable: false },
    });
  });

  it('accepts a body just under 1 MB', async () => {
    const app = await build();
    const payload = JSON.stringify({ a: 1, pad: 'x'.repeat(1_048_576 - 30) });
    expect(payload.length).toBeLessThanOrEqual(1_048_576);
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(200);
  });

  it('answers invalid JSON with 400 and the profile code E001', async () => {
    const app = await build();
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: { code: 'PROTO-E001', message: 'Request body is not valid JSON', retryable: false },
    });
  });

  it('uses the dcp-ai prefix under PROTOCOL_PROFILE=dcp-ai (D1)', async () => {
    const app = await build({}, { PROTOCOL_PROFILE: 'dcp-ai' });
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '[',
    });
    expect(res.json().error.code).toBe('DCP-E001');
  });

  it('reports schema violations as 400 E001 with details', async () => {
    const app = await build();
    const res = await app.inject({ method: 'POST', url: '/echo', payload: { b: 1 } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error.code).toBe('PROTO-E001');
    expect(body.error.details).toEqual([
      expect.objectContaining({ message: expect.stringContaining("'a'") }),
    ]);
  });

  it('rejects a path id outside the identifier pattern with INVALID_ID', async () => {
    const app = await build();
    const res = await app.inject({ method: 'GET', url: `/things/${encodeURIComponent('a b;drop')}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('INVALID_ID');
    expect((await app.inject({ method: 'GET', url: '/things/agent:1.a-b' })).statusCode).toBe(200);
  });

  it('hides internal errors: 500 E900 with a fixed message and no stack', async () => {
    const app = await build();
    const res = await app.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'PROTO-E900', message: 'Internal error', retryable: true } });
    expect(res.body).not.toMatch(/hunter2|secret\.ts|at /);
  });

  it('renders HttpErrors with their code and details', async () => {
    const app = await build();
    const res = await app.inject({ method: 'GET', url: '/conflict' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: { code: 'CONFLICT', message: 'already there', retryable: false, details: { id: 'x' } },
    });
  });

  it('answers unknown routes with 404 in the same shape, and a known path under another method with 405', async () => {
    const app = await build();
    const missing = await app.inject({ method: 'GET', url: '/nope?x=1' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'No route for GET /nope', retryable: false },
    });
    const wrong = await app.inject({ method: 'DELETE', url: '/echo' });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('POST');
    expect(wrong.json().error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers an unsupported content type with 415', async () => {
    const app = await build();
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'text/xml' },
      payload: '<a/>',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('PROTO-E001');
  });
});

describe('CBOR wire format (PROTOCOL §8.2)', () => {
  it('parses an application/cbor body and answers CBOR when the caller prefers it', async () => {
    const app = await build();
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/cbor', accept: 'application/cbor' },
      payload: encodeCbor({ a: 7, sig_b64: 'AAECAw==' }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/cbor');
    expect(res.headers.vary).toMatch(/Accept/);
    // Byte strings travel raw and come back as `_b64` text.
    expect(decodeCbor(res.rawPayload)).toEqual({ got: { a: 7, sig_b64: 'AAECAw==' } });
  });

  it('keeps JSON as the default and on ties', async () => {
    const app = await build();
    const payload = encodeCbor({ a: 1 });
    for (const accept of [
      undefined,
      '*/*',
      'application/json, application/cbor',
      'application/cbor;q=0.5, application/json',
    ]) {
      const res = await app.inject({
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': 'application/cbor', ...(accept ? { accept } : {}) },
        payload,
      });
      expect(res.headers['content-type'], String(accept)).toMatch(/application\/json/);
      expect(res.json()).toEqual({ got: { a: 1 } });
    }
  });

  it('rejects tags, floats and undefined with 400 E001', async () => {
    const app = await build();
    for (const hex of ['a16161c11a514b67b0', 'a16161fb3ff8000000000000', 'a16161f7', 'bf616101ff']) {
      const res = await app.inject({
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': 'application/cbor' },
        payload: Buffer.from(hex, 'hex'),
      });
      expect(res.statusCode, hex).toBe(400);
      expect(res.json().error.code).toBe('PROTO-E001');
      expect(res.json().error.message).toMatch(/not valid CBOR/);
    }
  });

  it('sends errors in CBOR to a CBOR caller', async () => {
    const app = await build();
    const res = await app.inject({ method: 'GET', url: '/nope', headers: { accept: 'application/cbor' } });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('application/cbor');
    expect(decodeCbor(res.rawPayload)).toEqual({
      error: { code: 'NOT_FOUND', message: 'No route for GET /nope', retryable: false },
    });
  });

  it('refuses to put a float on the CBOR wire (500 E900), JSON still works', async () => {
    const app = await build();
    const cbor = await app.inject({ method: 'GET', url: '/float', headers: { accept: 'application/cbor' } });
    expect(cbor.statusCode).toBe(500);
    expect(decodeCbor(cbor.rawPayload)).toMatchObject({ error: { code: 'PROTO-E900' } });
    expect((await app.inject({ method: 'GET', url: '/float' })).json()).toEqual({ ratio: 0.5 });
  });
});

describe('operations endpoints', () => {
  it('serves /health without I/O', async () => {
    const app = await build({ health: () => ({ crypto_backend: 'native' }) });
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      service: 'test',
      version: '2.0.3',
      profile: 'proto',
      crypto_backend: 'native',
      uptime_s: expect.any(Number),
    });
  });

  it('answers /ready 503 with the failing check, 200 once it passes', async () => {
    const app = await createService({ name: 'test', version: '1', config: config(), rateLimit: false });
    apps.push(app);
    let up = false;
    app.addReadinessCheck('database', async () => {
      if (!up) throw new Error('connection refused');
    });
    await app.ready();
    const down = await app.inject({ method: 'GET', url: '/ready' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({
      error: {
        code: 'NOT_READY',
        message: 'A readiness check failed',
        retryable: true,
        details: { checks: { database: 'failed' } },
      },
    });
    up = true;
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok' } });
  });

  it('exposes Prometheus metrics with the profile prefix and the HTTP histogram by route', async () => {
    const app = await build();
    await app.inject({ method: 'GET', url: '/health' });
    await app.inject({ method: 'GET', url: '/things/abc' });
    await app.inject({ method: 'GET', url: '/random/path/attacker-chosen' });
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.body).toMatch(/^# HELP process_cpu_user_seconds_total/m);
    expect(res.body).toMatch(
      /proto_http_request_duration_seconds_count\{route="\/health",method="GET",status_code="200"\} 1/,
    );
    expect(res.body).toMatch(
      /proto_http_request_duration_seconds_count\{route="\/things\/:id",method="GET",status_code="200"\} 1/,
    );
    expect(res.body).toMatch(/route="unmatched",method="GET",status_code="404"/);
    // The URL of an unmatched request is the client's: it must not become a label. (A number here once matched
    // process_start_time_seconds by chance.)
    expect(res.body).not.toContain('attacker-chosen');
    expect(res.body).toMatch(/^proto_http_errors_total\{code="NOT_FOUND"\} 1$/m);
  });

  it('serves the OpenAPI document generated from route schemas at /docs/json', async () => {
    const app = await build();
    const res = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info).toMatchObject({ title: 'test service', version: '2.0.3' });
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/echo', '/things/{id}', '/health', '/ready']),
    );
    expect(doc.paths['/echo'].post.requestBody.content['application/json'].schema.required).toEqual(['a']);
    expect((await app.inject({ method: 'GET', url: '/docs' })).statusCode).toBeLessThan(400);
  });

  it('sets security headers and a request id', async () => {
    const app = await build();
    const res = await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
    expect(res.headers['x-request-id']).toBe('abc-123');
    const injected = await app.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'bad id\nx' },
    });
    expect(injected.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('load shedding (under-pressure)', () => {
  it('answers 503 + Retry-After + E702 while the event loop lags; /health and /metrics still answer', async () => {
    const app = await build({ loadShedding: { maxEventLoopDelay: 20, sampleInterval: 50, retryAfter: 7 } });
    const until = Date.now() + 400;
    while (Date.now() < until) {
      // Block the event loop the way a CPU-bound handler would.
    }
    await new Promise((r) => setTimeout(r, 5));
    const [shed, health, metrics] = await Promise.all([
      app.inject({ method: 'POST', url: '/echo', payload: { a: 1 } }),
      app.inject({ method: 'GET', url: '/health' }),
      app.inject({ method: 'GET', url: '/metrics' }),
    ]);
    expect(shed.statusCode).toBe(503);
    expect(shed.headers['retry-after']).toBe('7');
    expect(shed.json()).toEqual({
      error: { code: 'PROTO-E702', message: 'Service under backpressure, retry later', retryable: true },
    });
    expect(health.statusCode).toBe(200);
    expect(metrics.statusCode).toBe(200);
  });
});

describe('load shedding at boot', () => {
  it('does not count the boot’s own event-loop lag as load', async () => {
    const app = await createService({
      name: 'test',
      version: '1',
      config: config(),
      rateLimit: false,
      loadShedding: { maxEventLoopDelay: 20, sampleInterval: 50 },
    });
    apps.push(app);
    app.get('/work', async () => ({ ok: true }));
    const until = Date.now() + 300;
    while (Date.now() < until) {
      // A slow boot: schemas compiled, workers started, migrations run.
    }
    await new Promise((r) => setTimeout(r, 60));
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/work' })).statusCode).toBe(200);
  });
});

describe('logging', () => {
  it("P496: scrubs a secret variable's value from a failed readiness check's error, its cause and stack", async () => {
    // An RPC URL with its API key in the path (Infura, Alchemy): the client library's error repeats the whole URL.
    const url = 'https://rpc.example/v3/0123456789abcdef-api-key';
    process.env['PROBE_RPC_URL'] = url;
    try {
      const lines: string[] = [];
      const stream = new Writable({
        write(chunk, _enc, cb) {
          lines.push(String(chunk));
          cb();
        },
      });
      const app = await createService({
        name: 'test',
        version: '1',
        config: config({ LOG_LEVEL: 'info' }),
        rateLimit: false,
        logger: { stream },
      });
      apps.push(app);
      app.addReadinessCheck('chain:evm', async () => {
        throw new Error(`HTTP request failed.\n\nURL: ${url}`, {
          cause: new Error(`fetch failed: connect ECONNREFUSED (${url})`),
        });
      });
      await app.ready();
      expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(503);
      const text = lines.join('');
      expect(text).toContain('readiness check failed');
      expect(text).toContain('HTTP request failed');
      expect(text).toContain('[redacted]');
      expect(text).not.toContain('0123456789abcdef-api-key');
    } finally {
      delete process.env['PROBE_RPC_URL'];
    }
  });

  it('logs request ids and redacts credentials and secret keys', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const app = await createService({
      name: 'test',
      version: '1',
      config: config({ LOG_LEVEL: 'info' }),
      rateLimit: false,
      logger: { stream },
    });
    apps.push(app);
    app.get('/log', async (req) => {
      req.log.info(
        { authorization: 'Bearer s3cr3t-token', token: 'tok-value', key: { secret_key_b64: 'AAAA' } },
        'handling',
      );
      return { ok: true };
    });
    await app.ready();
    await app.inject({ method: 'GET', url: '/log', headers: { 'x-request-id': 'req-42' } });
    const text = lines.join('');
    expect(text).toContain('"reqId":"req-42"');
    expect(text).toContain('[REDACTED]');
    expect(text).not.toMatch(/s3cr3t-token|tok-value|"AAAA"/);
  });
});
