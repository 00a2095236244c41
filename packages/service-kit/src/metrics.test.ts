// Metric names an operator alerts on: one namespace for every profile, unprefixed process metrics, build_info,
// dependency availability from the readiness checks (issue 16 item 3), read over GET /metrics.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from './config.ts';
import { createService } from './service.ts';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function service(env: Record<string, string> = {}, rateLimit = false) {
  const config = loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, {
    LOG_LEVEL: 'silent',
    PROBE_REUSE_MS: '0',
    ...env,
  });
  const app = await createService({
    name: 'metrics-test',
    version: '9.8.7',
    config,
    ...(rateLimit ? {} : { rateLimit: false }),
  });
  apps.push(app);
  return app;
}

async function scrape(app: FastifyInstance): Promise<string> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  return res.body;
}

describe('GET /metrics', () => {
  it.each(['proto', 'dcp-ai'])(
    'names service metrics proto_* under PROTOCOL_PROFILE=%s, the profile in build_info',
    async (profile) => {
      const app = await service({ PROTOCOL_PROFILE: profile });
      await app.ready();
      await app.inject({ method: 'GET', url: '/health' });
      const text = await scrape(app);
      expect(text).toMatch(
        /^proto_http_request_duration_seconds_count\{route="\/health",method="GET",status_code="200"\} 1$/m,
      );
      expect(text).not.toMatch(/^dcp_/m);
      expect(text).toMatch(
        new RegExp(
          `^proto_build_info\\{service="metrics-test",profile="${profile}",version="9\\.8\\.7",commit="[^"]+"\\} 1$`,
          'm',
        ),
      );
    },
  );

  it('puts GIT_COMMIT into build_info and refuses a malformed one at boot', async () => {
    const app = await service({ GIT_COMMIT: '0123abc' });
    await app.ready();
    expect(await scrape(app)).toMatch(/^proto_build_info\{[^}]*commit="0123abc"\} 1$/m);
    await expect(service({ GIT_COMMIT: 'bad commit"' })).rejects.toThrow(/GIT_COMMIT/);
  });

  it('exports the default process and Node.js metrics unprefixed, as stock dashboards expect', async () => {
    const app = await service();
    await app.ready();
    const text = await scrape(app);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).not.toMatch(/^proto_process_|^proto_nodejs_/m);
  });

  it('reports each dependency of the readiness checks as proto_dependency_up 1 or 0', async () => {
    const app = await service();
    let redisUp = false;
    app.addReadinessCheck('store', async () => undefined);
    app.addReadinessCheck('redis', async () => {
      if (!redisUp) throw new Error('ECONNREFUSED');
    });
    await app.ready();
    let text = await scrape(app);
    expect(text).toMatch(/^proto_dependency_up\{dependency="store"\} 1$/m);
    expect(text).toMatch(/^proto_dependency_up\{dependency="redis"\} 0$/m);
    redisUp = true;
    text = await scrape(app);
    expect(text).toMatch(/^proto_dependency_up\{dependency="redis"\} 1$/m);
  });

  it.skipIf(!process.env['REDIS_URL'])(
    'reports the rate-limit Redis as a dependency, up or down',
    async () => {
      const up = await service({ REDIS_URL: process.env['REDIS_URL'] as string }, true);
      await up.ready();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await scrape(up)).toMatch(/^proto_dependency_up\{dependency="redis"\} 1$/m);
      // Nothing listens on port 9.
      const down = await service({ REDIS_URL: 'redis://127.0.0.1:9' }, true);
      await down.ready();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await scrape(down)).toMatch(/^proto_dependency_up\{dependency="redis"\} 0$/m);
    },
  );
});
