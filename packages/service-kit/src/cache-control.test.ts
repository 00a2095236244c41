// The kit's Cache-Control default (P195) on a service built by createService, over a real socket: what a route
// said wins on a success; an error is never storable, whatever the route had set before it failed.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheControlFor } from './cache-control.ts';
import { loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from './config.ts';
import { httpError } from './http-errors.ts';
import { createService } from './service.ts';

let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  app = await createService({
    name: 'cache-test',
    version: '1.0.0',
    config: loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, { LOG_LEVEL: 'silent' }),
    rateLimit: false,
    docs: false,
    // Under a loaded test host the event-loop guard may answer 503 first; this file is about headers.
    loadShedding: false,
  });
  app.get('/plain', async () => ({ ok: true }));
  app.get('/own', async (_request, reply) => reply.header('cache-control', 'public, max-age=60').send('x'));
  app.get('/own-then-fails', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    throw new Error('failed after the header was set');
  });
  app.get('/own-error', async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    throw httpError('CONFLICT', 'not yet');
  });
  app.get('/redirect', async (_request, reply) => reply.redirect('/plain'));
  await app.register(async (scope) => {
    // A plugin's own hook runs after the kit's: its word is the last.
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.header('cache-control', 'private, max-age=5');
      return payload;
    });
    scope.get('/scoped', async () => ({ ok: true }));
    scope.get('/scoped-error', async () => {
      throw httpError('NOT_FOUND', 'nothing');
    });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app?.close();
});

async function cacheOf(path: string): Promise<[number, string | null]> {
  const answer = await fetch(`${url}${path}`, { redirect: 'manual' });
  await answer.arrayBuffer();
  return [answer.status, answer.headers.get('cache-control')];
}

describe('the Cache-Control default of every service', () => {
  it('probes no-store, other successes no-cache, a route or plugin header kept', async () => {
    expect(await cacheOf('/health')).toEqual([200, 'no-store']);
    expect(await cacheOf('/ready')).toEqual([200, 'no-store']);
    expect(await cacheOf('/metrics')).toEqual([200, 'no-store']);
    expect(await cacheOf('/health?probe=1')).toEqual([200, 'no-store']);
    expect(await cacheOf('/plain')).toEqual([200, 'no-cache']);
    expect(await cacheOf('/redirect')).toEqual([302, 'no-cache']);
    expect(await cacheOf('/own')).toEqual([200, 'public, max-age=60']);
    expect(await cacheOf('/scoped')).toEqual([200, 'private, max-age=5']);
    expect(await cacheOf('/scoped-error')).toEqual([404, 'private, max-age=5']);
  });

  it('errors are no-store, unless the route already forbade reuse', async () => {
    expect(await cacheOf('/nowhere')).toEqual([404, 'no-store']);
    expect(await cacheOf('/own-then-fails')).toEqual([500, 'no-store']);
    expect(await cacheOf('/own-error')).toEqual([409, 'no-cache']);
  });

  it('reads the route header directive by directive', () => {
    expect(cacheControlFor(500, '/x', 'public, max-age=300')).toBe('no-store');
    expect(cacheControlFor(500, '/x', 'public, no-cache')).toBeUndefined();
    expect(cacheControlFor(500, '/x', 'No-Store')).toBeUndefined();
    expect(cacheControlFor(500, '/x', 'no-cache-please')).toBe('no-store');
    expect(cacheControlFor(200, '/x', 'max-age=1')).toBeUndefined();
    expect(cacheControlFor(304, undefined, undefined)).toBe('no-cache');
  });
});
