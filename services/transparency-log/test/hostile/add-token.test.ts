// POST /add needs the operator token, even when OPERATOR_TOKEN is unset (one is generated).
// Issue 12 row h; D22 as changed by the limits decisions note (log appends are an operator action).
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OPERATOR_TOKEN_FILE } from '@proto/service-kit';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, tempDataDir } from '../../src/test-support.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listeningLog(
  env: Record<string, string>,
): Promise<{ app: FastifyInstance; url: string; dir: string }> {
  const temp = await tempDataDir('add-token');
  cleanups.push(temp.remove);
  const app = await buildTestLog(temp.dir, env, {}, { timers: false });
  cleanups.push(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}`, dir: temp.dir };
}

function add(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${url}/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

describe('row h: POST /add is an operator action', () => {
  it('without OPERATOR_TOKEN: anonymous /add is 401 with a code, the generated token file works', async () => {
    const { url, dir } = await listeningLog({ OPERATOR_TOKEN: '' });
    const body = JSON.stringify({ bundle_hash: bundleHash(1, 'token') });

    const anonymous = await add(url, body);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');

    const wrong = await add(url, body, { authorization: 'Bearer not-the-token-at-all-0000' });
    expect(wrong.status).toBe(401);
    await wrong.arrayBuffer();

    const file = join(dir, OPERATOR_TOKEN_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const token = (await readFile(file, 'utf8')).trim();
    const authorised = await add(url, body, { authorization: `Bearer ${token}` });
    expect(authorised.status).toBe(201);
    await authorised.arrayBuffer();
    // Reads stay public.
    expect((await fetch(`${url}/checkpoint`)).status).toBe(200);
  });

  it('with OPERATOR_TOKEN set: only that token appends', async () => {
    const token = 'log-operator-token-for-the-test-0001';
    const { url } = await listeningLog({ OPERATOR_TOKEN: token });
    const body = JSON.stringify({ bundle_hash: bundleHash(2, 'token') });
    const anonymous = await add(url, body);
    expect(anonymous.status).toBe(401);
    await anonymous.arrayBuffer();
    const authorised = await add(url, body, { authorization: `Bearer ${token}` });
    expect(authorised.status).toBe(201);
    await authorised.arrayBuffer();
  });

  it('refuses an unauthenticated body before reading it (no parse error, no 413)', async () => {
    const { url } = await listeningLog({ OPERATOR_TOKEN: '' });
    // Not JSON, and 1 MB: parsed first it would be 400; read first, over the limit it would be 413.
    for (const body of [`{${'x'.repeat(1_000_000)}`, `{${'x'.repeat(1_100_000)}`]) {
      const res = await add(url, body);
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }
  });
});
