// Operator bearer tokens: constant-time list match, 401 with a code, generated token file (mode 0600,
// path logged, token never logged). DECISIONS D22.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from './config.ts';
import { operatorTokenGuard, resolveOperatorTokens, tokenMatches } from './operator-token.ts';
import { createService } from './service.ts';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

const quietLog = () => {
  const lines: string[] = [];
  return {
    lines,
    log: {
      info: (obj: object, msg: string) => lines.push(JSON.stringify({ ...obj, msg })),
      warn: (obj: object, msg: string) => lines.push(JSON.stringify({ ...obj, msg })),
    },
  };
};

describe('operator token guard', () => {
  const TOKENS = ['old-token-0123456789', 'new-token-9876543210'];

  async function guarded() {
    const config = loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, { LOG_LEVEL: 'silent' });
    const app = await createService({ name: 'guard', version: '1', config, rateLimit: false });
    app.post('/anchor', { onRequest: operatorTokenGuard(TOKENS) }, async () => ({ anchored: true }));
    apps.push(app);
    return app;
  }

  it('accepts every token of the comma-separated list (rotation)', async () => {
    const app = await guarded();
    for (const token of TOKENS) {
      const res = await app.inject({
        method: 'POST',
        url: '/anchor',
        headers: { authorization: `Bearer ${token}` },
        payload: {},
      });
      expect(res.statusCode).toBe(200);
    }
  });

  it('answers a missing or wrong token with 401 UNAUTHORIZED and WWW-Authenticate', async () => {
    const app = await guarded();
    const missing = await app.inject({ method: 'POST', url: '/anchor', payload: {} });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(missing.json()).toEqual({
      error: { code: 'UNAUTHORIZED', message: 'An operator bearer token is required', retryable: false },
    });
    for (const authorization of ['Bearer old-token-012345678', 'Basic b2xkLXRva2Vu', 'Bearer ', TOKENS[0]!]) {
      const res = await app.inject({
        method: 'POST',
        url: '/anchor',
        headers: { authorization },
        payload: {},
      });
      expect(res.statusCode, authorization).toBe(401);
      expect(res.json().error.code).toBe('UNAUTHORIZED');
    }
  });

  it('matches only exact tokens', () => {
    expect(tokenMatches('new-token-9876543210', TOKENS)).toBe(true);
    expect(tokenMatches('new-token-98765432100', TOKENS)).toBe(false);
    expect(tokenMatches('', TOKENS)).toBe(false);
  });
});

describe('resolving OPERATOR_TOKEN', () => {
  it('splits the environment list and rejects weak entries naming the variable', () => {
    const { log } = quietLog();
    const dataDir = mkdtempSync(join(tmpdir(), 'optoken-'));
    expect(
      resolveOperatorTokens({ value: ' aaaaaaaaaaaaaaaa , bbbbbbbbbbbbbbbb ', dataDir, required: true, log }),
    ).toEqual({
      tokens: ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb'],
      source: 'env',
    });
    expect(() => resolveOperatorTokens({ value: 'short', dataDir, required: true, log })).toThrow(
      ConfigError,
    );
    expect(() => resolveOperatorTokens({ value: 'short', dataDir, required: true, log })).toThrow(
      /OPERATOR_TOKEN/,
    );
    expect(() => resolveOperatorTokens({ value: ',,', dataDir, required: true, log })).toThrow(
      /OPERATOR_TOKEN/,
    );
  });

  it('leaves the guard off when no token is set and none is required', () => {
    const { log } = quietLog();
    expect(
      resolveOperatorTokens({ value: undefined, dataDir: '/nonexistent', required: false, log }),
    ).toBeUndefined();
  });

  it('generates a token into DATA_DIR/operator-token with mode 0600, logs the path, never the token', () => {
    const { log, lines } = quietLog();
    const dataDir = join(mkdtempSync(join(tmpdir(), 'optoken-')), 'nested');
    const first = resolveOperatorTokens({ value: undefined, dataDir, required: true, log })!;
    const path = join(dataDir, 'operator-token');
    expect(first.source).toBe('file');
    expect(first.filePath).toBe(path);
    expect(first.tokens).toHaveLength(1);
    expect(first.tokens[0]!.length).toBeGreaterThanOrEqual(40);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8').trim()).toBe(first.tokens[0]);
    expect(lines.join('\n')).toContain(path);
    expect(lines.join('\n')).not.toContain(first.tokens[0]);
    // The second start reuses the stored token.
    const second = resolveOperatorTokens({ value: undefined, dataDir, required: true, log })!;
    expect(second.tokens).toEqual(first.tokens);
  });
});
