// URLs Fastify's router refuses before any hook runs (a malformed percent-escape, a path parameter over
// its 100 characters) over real HTTP: they get the service's error shape, request id and security headers
// (and the /v2 headers, D17) like every other answer, and never echo the attacker's URL. P148.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AsIsAnswer, requestAsIs } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordsConfig, mountRecords } from '../../src/records/plugin.ts';
import { metricValue, type RunningApp, startApp } from '../../src/test-support.ts';

let dataDir: string;
let running: RunningApp;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'router-refusals-'));
  const mounted = await mountRecords(loadRecordsConfig({ DATA_DIR: dataDir }));
  running = await startApp({ VERIFY_WORKERS: '1' }, [mounted]);
});
afterAll(async () => {
  await running?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A GET with the path sent byte for byte (fetch would re-encode it). */
const get = (path: string) =>
  requestAsIs(`${running.url}/`, { path, headers: { 'x-request-id': 'pinned-id' } });

function expectServiceAnswer(answer: AsIsAnswer, code: string, attackerText: string): void {
  expect(answer.status).toBe(400);
  const body = JSON.parse(answer.text) as { error: { code: string; message: string; retryable: boolean } };
  expect(body.error).toMatchObject({ code, retryable: false });
  expect(answer.text).not.toContain(attackerText);
  expect(answer.headers['x-request-id']).toBe('pinned-id');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
  expect(answer.headers['x-frame-options']).toBe('DENY');
  // D17's fourth /v2 header; an answer to a URL nobody can use is never worth caching anywhere.
  expect(answer.headers['cache-control']).toBe('no-store');
}

describe('URLs the router refuses', () => {
  it('a malformed percent-escape gets the error shape and every header, on any path', async () => {
    const before = await metricValue(running.url, 'proto_http_errors_total{code="BAD_REQUEST"}').catch(
      () => 0,
    );
    for (const path of ['/health/%ZZ<marker>', '/v2/keys/%E0%A4%A<marker>', '/verify%ZZ<marker>']) {
      expectServiceAnswer(await get(path), 'BAD_REQUEST', '<marker>');
    }
    const after = await metricValue(running.url, 'proto_http_errors_total{code="BAD_REQUEST"}');
    expect(after - before).toBe(3);
  });

  it('a kid longer than the router takes gets INVALID_ID with every header, as a 300-character record id does', async () => {
    const long = `${'a'.repeat(140)}marker`;
    expectServiceAnswer(await get(`/v2/keys/${long}`), 'INVALID_ID', 'marker');
    // The records' own fallback route already answered this way; unchanged.
    const record = await get(`/v2/dispute/record/${'b'.repeat(300)}`);
    expect(record.status).toBe(400);
    expect(JSON.parse(record.text)).toMatchObject({ error: { code: 'INVALID_ID' } });
  });

  it('the service keeps answering on the same connection afterwards', async () => {
    await get('/health/%ZZ');
    expect((await get('/health')).status).toBe(200);
  });
});

describe('identifiers refused by a rule narrower than the id pattern', () => {
  it('name that rule, not the general id pattern they match', async () => {
    const kid = await get(`/v2/keys/${'A'.repeat(32)}`);
    expect(kid.status).toBe(400);
    expect(JSON.parse(kid.text)).toMatchObject({
      error: { code: 'INVALID_ID', details: { field: 'kid in path', pattern: '^[0-9a-f]{32}$' } },
    });
    const version = await get('/v2/succession/testament/agent-1?version=0');
    expect(version.status).toBe(400);
    expect(JSON.parse(version.text)).toMatchObject({
      error: { code: 'INVALID_ID', details: { field: 'version', pattern: '^[1-9]\\d{0,8}$' } },
    });
    expect(JSON.parse(version.text).error.message).toContain('^[1-9]\\d{0,8}$');
  });
});
