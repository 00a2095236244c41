// A request refused before its body is read (rate limit, load shedding, operator token, 415) is answered
// with Connection: close, so a keep-alive client does not hold the socket and app.close() returns promptly.
// Over real HTTP with a keep-alive agent: app.inject has no socket to keep.
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from './config.ts';
import { operatorTokenGuard } from './operator-token.ts';
import { rateLimitPerIp } from './rate-limit.ts';
import { createService, type ServiceOptions } from './service.ts';

const ONE_MB = Buffer.alloc(1_000_000, 'x');
/** Well under the 60 s a held keep-alive upload used to cost, well over a prompt close. */
const PROMPT_CLOSE_MS = 5_000;

const agents: Agent[] = [];
const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function listening(options: Partial<ServiceOptions>, routes: (app: FastifyInstance) => void) {
  const config = loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, { LOG_LEVEL: 'silent' });
  const app = await createService({
    name: 'unread-body',
    version: '1',
    config,
    rateLimit: false,
    ...options,
  });
  routes(app);
  apps.push(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  return { app, port, agent };
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
}

/** POSTs `body` and resolves with the answer once it is read; an upload cut short by the server is fine. */
function post(
  target: { port: number; agent: Agent },
  path: string,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path,
        method: 'POST',
        agent: target.agent,
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    req.end(body);
  });
}

async function closesPromptly(app: FastifyInstance): Promise<number> {
  const started = Date.now();
  await Promise.race([
    app.close(),
    new Promise((_, reject) => setTimeout(() => reject(new Error('app.close() hung')), PROMPT_CLOSE_MS)),
  ]);
  apps.splice(apps.indexOf(app), 1);
  return Date.now() - started;
}

/** The 1 MB upload is refused with `status` and Connection: close, and the server then stops promptly. */
async function refusedAndClosed(
  target: Awaited<ReturnType<typeof listening>>,
  path: string,
  status: number,
  headers: Record<string, string> = {},
): Promise<void> {
  const refused = await post(target, path, ONE_MB, headers);
  expect(refused.status).toBe(status);
  expect(refused.headers.connection).toBe('close');
  expect(await closesPromptly(target.app)).toBeLessThan(PROMPT_CLOSE_MS);
}

describe('a refusal of an unread body closes the connection', () => {
  it('rate limit (429)', async () => {
    const target = await listening({ rateLimit: {} }, (app) => {
      app.post('/limited', { config: rateLimitPerIp(1, '1 minute') }, async () => ({ ok: true }));
    });
    const first = await post(target, '/limited', Buffer.from('{}'));
    expect(first.status).toBe(200);
    expect(first.headers.connection).toBe('keep-alive');
    await refusedAndClosed(target, '/limited', 429);
  });

  it('load shedding (503)', async () => {
    // Any heap is over a 1-byte threshold: every request after the first sample is shed.
    const target = await listening({ loadShedding: { maxHeapUsedBytes: 1, sampleInterval: 20 } }, (app) => {
      app.post('/work', async () => ({ ok: true }));
    });
    await new Promise((r) => setTimeout(r, 100));
    await refusedAndClosed(target, '/work', 503);
  });

  it('operator token refused (401)', async () => {
    const target = await listening({}, (app) => {
      app.post('/anchor', { onRequest: operatorTokenGuard(['operator-token-0123456789']) }, async () => ({
        anchored: true,
      }));
    });
    await refusedAndClosed(target, '/anchor', 401);
  });

  it('unsupported media type (415)', async () => {
    const target = await listening({}, (app) => {
      app.post('/echo', async (req) => ({ got: req.body }));
    });
    await refusedAndClosed(target, '/echo', 415, { 'content-type': 'application/xml' });
  });

  it('keeps the connection alive when the body was read, even for an error', async () => {
    const target = await listening({}, (app) => {
      app.post('/echo', { schema: { body: { type: 'object', required: ['a'] } } }, async (req) => ({
        got: req.body,
      }));
    });
    const ok = await post(target, '/echo', Buffer.from('{"a":1}'));
    expect(ok.status).toBe(200);
    expect(ok.headers.connection).toBe('keep-alive');
    const invalid = await post(target, '/echo', Buffer.from('{"b":1}'));
    expect(invalid.status).toBe(400);
    expect(invalid.headers.connection).toBe('keep-alive');
  });
});
