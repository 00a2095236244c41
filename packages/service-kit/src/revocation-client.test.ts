// The revocation checker's parsing and HTTP edge cases against small real HTTP servers: configuration
// errors, Cache-Control handling, timeouts, oversized and broken responses. DECISIONS D20 (fail closed).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { signRevocationList } from '@proto/core';
import { sampleList, testKey } from '@proto/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from './config.ts';
import {
  createRevocationChecker,
  freshnessLifetimeMs,
  parseAttestationTrustedKeys,
  parseRevocationSources,
  type RevocationCheckResult,
} from './revocation-client.ts';

const KEY = testKey(11);
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}/list.json`;
}

function signedList(now: Date, overrides = {}) {
  const list = signRevocationList(
    sampleList({
      updated_at: now.toISOString(),
      next_update: new Date(now.getTime() + 3_600_000).toISOString(),
      ...overrides,
    }),
    KEY.secretKey,
  );
  if (!list.ok) throw new Error(list.error.message);
  return list.value;
}

describe('parseRevocationSources / parseAttestationTrustedKeys', () => {
  it('parses the documented JSON shapes', () => {
    const sources = parseRevocationSources(
      JSON.stringify({
        FR: { url: 'https://rev.example.fr/.well-known/proto-revocations.json', keys: [KEY.publicKeyB64] },
      }),
    );
    expect(sources['FR']?.url).toBe('https://rev.example.fr/.well-known/proto-revocations.json');
    expect(sources['FR']?.keys).toEqual([
      { key_id: expect.stringMatching(/^[0-9a-f]{32}$/), public_key_b64: KEY.publicKeyB64 },
    ]);
    expect(parseRevocationSources(undefined)).toEqual({});
    expect(parseRevocationSources('  ')).toEqual({});
    const keys = parseAttestationTrustedKeys(
      JSON.stringify({
        FR: [
          KEY.publicKeyB64,
          {
            key_id: 'k2',
            public_key_b64: KEY.publicKeyB64,
            valid_from: '2026-01-01T00:00:00Z',
            valid_until: null,
          },
        ],
      }),
    );
    expect(keys['FR']).toHaveLength(2);
    expect(keys['FR']?.[1]).toMatchObject({ key_id: 'k2', valid_until: null });
  });

  it('throws ConfigError naming the variable for anything else', () => {
    const bad = [
      '{',
      '[]',
      '{"FR": []}',
      '{"FR": {"url": "ftp://x", "keys": ["' + KEY.publicKeyB64 + '"]}}',
      '{"FR": {"url": "https://x", "keys": []}}',
      '{"FR": {"url": "https://x", "keys": ["AAAA"]}}',
      '{"a b": {"url": "https://x", "keys": ["' + KEY.publicKeyB64 + '"]}}',
    ];
    for (const text of bad) {
      expect(() => parseRevocationSources(text), text).toThrow(ConfigError);
      try {
        parseRevocationSources(text);
      } catch (error) {
        expect((error as ConfigError).variables).toEqual(['REVOCATION_SOURCES']);
      }
    }
    expect(() => parseAttestationTrustedKeys('{"FR": ["nope"]}')).toThrow(/ATTESTATION_TRUSTED_KEYS/);
    expect(() =>
      parseAttestationTrustedKeys(
        '{"FR": [{"public_key_b64": "' + KEY.publicKeyB64 + '", "valid_from": "x"}]}',
      ),
    ).toThrow(ConfigError);
  });
});

describe('freshnessLifetimeMs', () => {
  it('reads max-age, subtracts Age, and treats no-cache/no-store as zero', () => {
    expect(freshnessLifetimeMs(new Headers({ 'cache-control': 'public, max-age=300' }), 1)).toBe(300_000);
    expect(freshnessLifetimeMs(new Headers({ 'cache-control': 'max-age=300', age: '100' }), 1)).toBe(200_000);
    expect(freshnessLifetimeMs(new Headers({ 'cache-control': 'no-cache, max-age=300' }), 1)).toBe(0);
    expect(freshnessLifetimeMs(new Headers({ 'cache-control': 'no-store' }), 1)).toBe(0);
    expect(freshnessLifetimeMs(new Headers(), 42_000)).toBe(42_000);
  });
});

describe('createRevocationChecker over HTTP', () => {
  it('caches no longer than next_update and honours the default TTL when there is no Cache-Control', async () => {
    let requests = 0;
    const now = new Date();
    const list = signedList(now, { next_update: new Date(now.getTime() + 10_000).toISOString() });
    const url = await serve((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' });
      res.end(JSON.stringify(list));
    });
    let clock = now.getTime();
    const checker = createRevocationChecker({
      sources: { FR: { url, keys: [KEY.publicKeyB64] } },
      clock: () => new Date(clock),
    });
    expect(
      (await checker.check({ jurisdiction: 'FR', agentId: 'agent:ok-1', tier: 'elevated' })).status,
    ).toBe('pass');
    expect(checker.state('FR')?.freshUntil).toBe(now.getTime() + 10_000);
    clock += 5_000;
    await checker.check({ jurisdiction: 'FR', agentId: 'agent:ok-1', tier: 'elevated' });
    expect(requests).toBe(1);
    expect(
      (await checker.check({ jurisdiction: 'FR', agentId: 'agent:revoked-1', tier: 'routine' })).code,
    ).toBe('PROTO-E300');
  });

  it('treats a timeout, an HTTP error, a non-JSON body and an oversized body as unavailable', async () => {
    const hang = await serve(() => undefined);
    // Headers at once, then a byte every 50 ms for ever: the timeout covers the body, not only the headers.
    const drip = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"list_number":');
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    // A Content-Length far above the cap is refused before any of the body is waited for.
    const lie = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(500 * 1024 * 1024) });
      res.write('{');
    });
    const error = await serve((_req, res) => {
      res.writeHead(503);
      res.end('down');
    });
    const html = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>');
    });
    const huge = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...signedList(new Date()), pad: 'x'.repeat(4096) }));
    });
    const checker = createRevocationChecker({
      sources: {
        HA: { url: hang, keys: [KEY.publicKeyB64] },
        DR: { url: drip, keys: [KEY.publicKeyB64] },
        CL: { url: lie, keys: [KEY.publicKeyB64] },
        ER: { url: error, keys: [KEY.publicKeyB64] },
        HT: { url: html, keys: [KEY.publicKeyB64] },
        HU: { url: huge, keys: [KEY.publicKeyB64] },
      },
      timeoutMs: 150,
      maxListBytes: 1024,
    });
    for (const [jurisdiction, pattern] of [
      ['HA', /timed out/],
      ['DR', /timed out/],
      ['CL', /524288000 bytes exceeds 1024/],
      ['ER', /HTTP 503/],
      ['HT', /JSON/],
      ['HU', /exceeds/],
    ] as const) {
      const result = await checker.check({ jurisdiction, agentId: 'agent:ok-1', tier: 'maximum' });
      expect(result, jurisdiction).toMatchObject({
        status: 'fail',
        code: 'PROTO-E701',
        reason: 'unavailable',
        retryable: true,
      });
      expect(result.message).toMatch(pattern);
    }
  });

  it('refuses a list published for another jurisdiction and uses the profile for codes and contexts', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(signedList(new Date())));
    });
    const { PROFILES } = await import('@proto/core');
    const checker = createRevocationChecker({
      sources: { DE: { url, keys: [KEY.publicKeyB64] } },
      profile: PROFILES['dcp-ai'],
    });
    expect(
      await checker.check({ jurisdiction: 'DE', agentId: 'agent:ok-1', tier: 'elevated' }),
    ).toMatchObject({
      status: 'fail',
      code: 'DCP-E701',
      reason: 'wrong_jurisdiction',
    });
  });
});

describe('P209: a failing check names its code, message and retryability by type', () => {
  it('a fail without a code, or a skipped without its warning, does not compile; a pass needs neither', () => {
    // @ts-expect-error a fail must carry its wire code (typecheck fails if this compiles)
    const failWithoutCode: RevocationCheckResult = { status: 'fail', message: 'x', retryable: false };
    // @ts-expect-error and its message
    const failWithoutMessage: RevocationCheckResult = {
      status: 'fail',
      code: 'PROTO-E300',
      retryable: false,
    };
    // @ts-expect-error a skipped check says why in its warning
    const skippedWithoutWarning: RevocationCheckResult = { status: 'skipped' };
    const pass: RevocationCheckResult = { status: 'pass' };
    expect([failWithoutCode, failWithoutMessage, skippedWithoutWarning, pass].map((r) => r.status)).toEqual([
      'fail',
      'fail',
      'skipped',
      'pass',
    ]);
  });
});
