// DATABASE_SCHEMA on the anchor service: two instances on one PostgreSQL database keep apart tables (issue 16 item 1).
// The service opens its own store from DATABASE_URL + DATABASE_SCHEMA here, as in production.
import { createStoreTarget, type StoreTarget, testDatabaseUrl } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { buildAnchorService } from './app.ts';
import { hashOf, postAnchor, testConfig } from './testing/app.ts';
import { type LogTestServer, startLogServer } from './testing/log-server.ts';

const databaseUrl = testDatabaseUrl();

describe.skipIf(databaseUrl === undefined)('DATABASE_SCHEMA', () => {
  const apps: FastifyInstance[] = [];
  let target: StoreTarget | undefined;
  let log: LogTestServer | undefined;

  afterAll(async () => {
    for (const app of apps) await app.close();
    await log?.close();
    await target?.cleanup();
  });

  it('keeps each instance in its own schema', async () => {
    target = await createStoreTarget('postgres', 'anchor-schema');
    log = await startLogServer();
    const schemas = [target.fresh('a'), target.fresh('b')];
    for (const options of schemas) {
      const app = await buildAnchorService({
        config: testConfig({
          DATABASE_URL: databaseUrl as string,
          DATABASE_SCHEMA: options.pgSchema as string,
          TL_URL: log.url,
          TL_TOKEN: log.token,
        }),
        startWorker: false,
      });
      await app.ready();
      apps.push(app);
    }
    const [a, b] = apps as [FastifyInstance, FastifyInstance];
    const hash = hashOf('schema a only');
    expect((await postAnchor(a, hash, 'transparency-log')).statusCode).toBeLessThan(300);
    expect((await a.inject({ method: 'GET', url: `/anchor/${hash}` })).statusCode).toBe(200);
    expect((await b.inject({ method: 'GET', url: `/anchor/${hash}` })).statusCode).toBe(404);
    // Looked at directly in each schema: the request is stored in the first one only.
    const stored = [];
    for (const options of schemas) stored.push((await target.open(options)).anchor.latest(hash));
    const [inA, inB] = await Promise.all(stored);
    expect(inA?.item.bundle_hash).toBe(hash);
    expect(inB).toBeUndefined();
  });

  it('refuses a schema name that is not a plain identifier at boot', () => {
    expect(() => testConfig({ DATABASE_SCHEMA: 'Bad; DROP' })).toThrow(/DATABASE_SCHEMA/);
  });
});
