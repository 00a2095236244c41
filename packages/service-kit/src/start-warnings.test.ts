// A service starts without deprecation warnings (FSTDEP023 was printed at every start: Fastify's top-level
// disableRequestLogging). Its own file: Fastify emits each warning once per process.
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from './config.ts';
import { createService } from './service.ts';

const warnings: Error[] = [];
const collect = (warning: Error) => warnings.push(warning);
afterEach(() => {
  process.off('warning', collect);
});

describe('service start', () => {
  it('prints no deprecation warning', async () => {
    process.on('warning', collect);
    const config = loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, { LOG_LEVEL: 'silent' });
    const app = await createService({ name: 'start', version: '1', config, rateLimit: {} });
    app.get('/thing', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    expect((await fetch(`http://127.0.0.1:${port}/thing`)).status).toBe(200);
    await app.close();
    // process.emitWarning delivers on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => /deprecat/i.test(`${w.name} ${w.message}`)).map((w) => w.message)).toEqual(
      [],
    );
  });
});
