// What the verification service loads before its first request (issue 14 item 5, P80): a process on
// SQLite without REDIS_URL never runs the PostgreSQL driver or the Redis client, so it does not load them
// (about 8 MB of RSS idle). The real service, started as `pnpm start:verification` starts it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOADED_MODULES_RECORDER } from '@proto/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnService } from '../src/test-support.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts the service, waits for it to listen, stops it with SIGTERM; the URLs of the modules it loaded. */
async function modulesLoadedAtIdle(env: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'verification-idle-modules-'));
  dirs.push(dir);
  const list = join(dir, 'modules.txt');
  const { child, exit, listening } = spawnService(
    { PORT: '0', LOG_LEVEL: 'info', DATA_DIR: join(dir, 'data'), LOADED_MODULES_FILE: list, ...env },
    ['--import', LOADED_MODULES_RECORDER],
  );
  await listening();
  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  return readFileSync(list, 'utf8').split('\n');
}

const fromPackage = (modules: readonly string[], name: string) =>
  modules.filter((url) => url.includes(`/node_modules/${name}/`));

describe('the idle verification service', () => {
  it('on SQLite without REDIS_URL has not loaded the PostgreSQL driver or the Redis client', async () => {
    const modules = await modulesLoadedAtIdle({});
    // The recorder saw the service's own modules (it would see nothing if its hook never ran).
    expect(modules.some((url) => url.endsWith('/services/verification/src/app.ts'))).toBe(true);
    expect(fromPackage(modules, 'fastify').length).toBeGreaterThan(0);
    expect(fromPackage(modules, 'pg')).toEqual([]);
    expect(fromPackage(modules, 'pg-pool')).toEqual([]);
    expect(fromPackage(modules, 'ioredis')).toEqual([]);
  });

  it.skipIf(process.env['REDIS_URL'] === undefined)(
    'loads the Redis client once REDIS_URL names the rate-limit store',
    async () => {
      const modules = await modulesLoadedAtIdle({ REDIS_URL: process.env['REDIS_URL']! });
      expect(fromPackage(modules, 'ioredis').length).toBeGreaterThan(0);
    },
  );
});
