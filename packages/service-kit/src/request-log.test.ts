// Request logging at info: one line per request with method, URL, status and time; the "incoming
// request" line only at debug; errors keep their own line. Issue 14 item 1.
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from './config.ts';
import { createService } from './service.ts';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function logged(level: string): Promise<Record<string, unknown>[]> {
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
    config: loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, { LOG_LEVEL: level }),
    rateLimit: false,
    logger: { stream },
  });
  apps.push(app);
  app.get('/ok', async () => ({ ok: true }));
  await app.ready();
  await app.inject({ method: 'GET', url: '/ok?x=1', headers: { 'x-request-id': 'req-7' } });
  return lines
    .join('')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['reqId'] === 'req-7');
}

describe('request log', () => {
  it('writes one line per request at info, with method, URL, status and time', async () => {
    const lines = await logged('info');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request completed',
      method: 'GET',
      url: '/ok?x=…',
      statusCode: 200,
    });
    expect(typeof lines[0]!['responseTime']).toBe('number');
  });

  it('adds the incoming request line at debug', async () => {
    const lines = await logged('debug');
    expect(lines.map((l) => l['msg'])).toEqual(['incoming request', 'request completed']);
  });
});
