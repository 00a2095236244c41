// The revocation service over real HTTP on every store dialect: the signed list and its cache headers,
// the operator API, restarts, concurrent issuers and the re-issue timer. DECISIONS D20, D22; SPEC.md.

import { verifyRevocationList } from '@proto/core';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  currentList,
  ISSUER,
  JURISDICTION,
  type RunningService,
  revoke,
  startService,
  tempDir,
} from './test-support.ts';

describe.each(dialectsUnderTest())('revocation service on %s', (dialect) => {
  let target: StoreTarget;
  let service: RunningService;
  let publicKey: string;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'revocation-svc');
    service = await startService({ store: target.options });
    publicKey = (
      (await (await fetch(`${service.url}/health`)).json()) as { revocation_public_key_b64: string }
    ).revocation_public_key_b64;
  });
  afterAll(async () => {
    await service?.close();
    await target?.cleanup();
  });

  it('serves list #1 at start-up, signed under D20, with ETag, Last-Modified and a bounded max-age', async () => {
    const res = await fetch(service.listUrl);
    expect(res.status).toBe(200);
    const list = (await res.json()) as Record<string, unknown>;
    expect(list).toMatchObject({ issuer: ISSUER, jurisdiction: JURISDICTION, entries: [] });
    expect(list['list_number']).toBeGreaterThanOrEqual(1);
    const verified = verifyRevocationList(list, [publicKey], {
      now: new Date(),
      expectedJurisdiction: JURISDICTION,
    });
    expect(verified.ok).toBe(true);
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    // The list's second rounded up, but never after the answer's own Date (P153).
    expect(new Date(res.headers.get('last-modified') ?? '').getTime()).toBe(
      Math.min(
        Math.ceil(Date.parse(String(list['updated_at'])) / 1000) * 1000,
        Date.parse(res.headers.get('date') ?? ''),
      ),
    );
    expect(res.headers.get('cache-control')).toBe('public, max-age=300, must-revalidate');
    const nextUpdate = Date.parse(String(list['next_update']));
    expect(nextUpdate - Date.parse(String(list['updated_at']))).toBe(86_400_000);
  });

  it('answers If-None-Match with 304 and no body, and a changed list with 200', async () => {
    const first = await fetch(service.listUrl);
    const etag = first.headers.get('etag') ?? '';
    const issued = Date.parse((JSON.parse(await first.text()) as { updated_at: string }).updated_at);
    const again = await fetch(service.listUrl, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toMatch(/^public, max-age=\d+, must-revalidate$/);
    const weak = await fetch(service.listUrl, { headers: { 'if-none-match': `"nope", W/${etag}` } });
    expect(weak.status).toBe(304);
    // A date at or after the list's issuing instant (a Last-Modified given within that very second is before
    // it, and answers 200: P153; list-revalidation.test.ts checks the Last-Modified round trip). Asked once that
    // date has passed: one after the service's clock is ignored (P212).
    const sinceMs = Math.ceil(issued / 1000) * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, sinceMs - Date.now() + 20)));
    const since = await fetch(service.listUrl, {
      headers: { 'if-modified-since': new Date(sinceMs).toUTCString() },
    });
    expect(since.status).toBe(304);
    const other = await fetch(service.listUrl, { headers: { 'if-none-match': '"0-stale"' } });
    expect(other.status).toBe(200);
    await other.text();
  });

  it('requires the operator token on every operator route (401 with a code)', async () => {
    for (const [method, path, body] of [
      ['POST', '/revocations', { agent_id: 'agent:x-000', reason: 'r' }],
      ['GET', '/revocations/agent:x-000', undefined],
      ['POST', '/attest', { agent_id: 'agent:x-000', rpr_hash: `sha256:${'a'.repeat(64)}` }],
    ] as const) {
      const missing = await call(service, method, path, body, null);
      expect(missing.status, `${method} ${path}`).toBe(401);
      expect(missing.json).toEqual({
        error: { code: 'UNAUTHORIZED', message: expect.any(String), retryable: false },
      });
      const wrong = await call(service, method, path, body, 'wrong-token-0123456789');
      expect(wrong.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect((await revoke(service, 'agent:x-000')).status).not.toBe(401);
  });

  it('revokes: 201, list_number bumps, the list carries reason_hash and never the reason text', async () => {
    const before = await currentList(service);
    const res = await call(service, 'POST', '/revocations', {
      agent_id: 'agent:revoked-1',
      reason: 'secret incident #4711',
      revoked_at: '2026-01-15T10:00:00Z',
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      agent_id: 'agent:revoked-1',
      revoked_at: '2026-01-15T10:00:00.000Z',
      reason_hash: 'sha256:' + (await sha256Hex('secret incident #4711')),
      list_number: before.list_number + 1,
      created: true,
    });
    const after = await currentList(service);
    expect(after.list_number).toBe(before.list_number + 1);
    expect(after['entries']).toContainEqual({
      agent_id: 'agent:revoked-1',
      revoked_at: '2026-01-15T10:00:00.000Z',
      reason_hash: res.json['reason_hash'],
    });
    expect(JSON.stringify(after)).not.toContain('incident');
    expect(
      verifyRevocationList(after, [publicKey], { now: new Date(), minListNumber: before.list_number }).ok,
    ).toBe(true);
    expect(service.logs.join('\n')).not.toContain('incident');
  });

  it('is idempotent and permanent: a second revocation is 200 with the first entry, and nothing deletes it', async () => {
    await revoke(service, 'agent:twice-1', 'first reason');
    const number = (await currentList(service)).list_number;
    const again = await revoke(service, 'agent:twice-1', 'another reason');
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ agent_id: 'agent:twice-1', created: false });
    expect(again.json['reason_hash']).toBe('sha256:' + (await sha256Hex('first reason')));
    expect((await currentList(service)).list_number).toBe(number);
    const del = await call(service, 'DELETE', '/revocations/agent:twice-1');
    expect(del.status).toBe(405);
    expect((await call(service, 'GET', '/revocations/agent:twice-1')).status).toBe(200);
  });

  it('looks revocations up: 200 with the entry, 404 for an agent that is not revoked', async () => {
    await revoke(service, 'agent:lookup-1');
    const found = await call(service, 'GET', '/revocations/agent:lookup-1');
    expect(found.status).toBe(200);
    expect(found.json).toMatchObject({
      agent_id: 'agent:lookup-1',
      reason_hash: expect.stringMatching(/^sha256:/),
    });
    const missing = await call(service, 'GET', '/revocations/agent:never-revoked');
    expect(missing.status).toBe(404);
    expect((missing.json['error'] as Record<string, unknown>)['code']).toBe('NOT_FOUND');
  });

  it('rejects ids outside the pattern and bad bodies with 400', async () => {
    for (const agentId of ['agent with space', 'a;drop', 'x'.repeat(257), 'short']) {
      const res = await revoke(service, agentId);
      expect(res.status, agentId).toBe(400);
      expect((res.json['error'] as Record<string, unknown>)['code']).toBe('INVALID_ID');
    }
    const path = await call(service, 'GET', `/revocations/${encodeURIComponent('a b')}`);
    expect([path.status, (path.json['error'] as Record<string, unknown>)['code']]).toEqual([
      400,
      'INVALID_ID',
    ]);
    const noReason = await call(service, 'POST', '/revocations', { agent_id: 'agent:noreason' });
    expect(noReason.status).toBe(400);
    const future = await call(service, 'POST', '/revocations', {
      agent_id: 'agent:future-1',
      reason: 'r',
      revoked_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(future.status).toBe(400);
    expect((await call(service, 'GET', '/revocations/agent:future-1')).status).toBe(404);
  });

  it('takes a revoked_at at a leap second as the millisecond before it, never later (P178)', async () => {
    // RFC 3339's `…:60` passes the date-time format; Date.parse called it NaN, so it was refused with 400.
    const res = await call(service, 'POST', '/revocations', {
      agent_id: 'agent:leap-1',
      reason: 'r',
      revoked_at: '2016-12-31T23:59:60Z',
    });
    expect([res.status, res.json['revoked_at']]).toEqual([201, '2016-12-31T23:59:59.999Z']);
    const list = await currentList(service);
    expect(list['entries']).toContainEqual(
      expect.objectContaining({ agent_id: 'agent:leap-1', revoked_at: '2016-12-31T23:59:59.999Z' }),
    );
    const noLeap = await call(service, 'POST', '/revocations', {
      agent_id: 'agent:leap-2',
      reason: 'r',
      revoked_at: '2016-12-31T12:30:60Z',
    });
    expect(noLeap.status).toBe(400);
  });

  it('gives concurrent revocations distinct list numbers, and the last list carries all of them', async () => {
    // A second instance on the same database: another replica (PostgreSQL) or process (SQLite).
    const twin = await startService({ store: target.options, dataDir: service.dataDir, timer: false });
    try {
      const start = (await currentList(service)).list_number;
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => revoke(i % 2 === 0 ? service : twin, `agent:race-${i}`)),
      );
      const numbers = results.map((r) => r.json['list_number'] as number).sort((a, b) => a - b);
      expect(results.every((r) => r.status === 201)).toBe(true);
      expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => start + 1 + i));
      const last = await currentList(twin);
      expect(last.list_number).toBe(start + 12);
      const ids = (last['entries'] as { agent_id: string }[]).map((e) => e.agent_id);
      for (let i = 0; i < 12; i++) expect(ids).toContain(`agent:race-${i}`);
    } finally {
      await twin.close();
    }
  });

  it('keeps revocations, keys and a monotonic list_number across a restart', async () => {
    await revoke(service, 'agent:before-restart');
    const before = await currentList(service);
    await service.close();
    service = await startService({ store: target.options, dataDir: service.dataDir });
    const after = await currentList(service);
    expect(after.list_number).toBeGreaterThanOrEqual(before.list_number);
    expect(after['entries']).toEqual(before['entries']);
    expect((after['signature'] as Record<string, unknown>)['public_key_b64']).toBe(publicKey);
    const next = await revoke(service, 'agent:after-restart');
    expect(next.json['list_number']).toBe(after.list_number + 1);
  });
});

describe('re-issue before next_update', () => {
  it('re-signs and bumps list_number on a timer even when nothing changed; max-age never passes next_update', async () => {
    const dir = tempDir('timer');
    const service = await startService({
      dataDir: dir.dir,
      env: { LIST_VALIDITY_S: '2', LIST_MAX_AGE_S: '300' },
    });
    try {
      const res = await fetch(service.listUrl);
      const first = (await res.json()) as { list_number: number; next_update: string; entries: unknown[] };
      const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1]);
      expect(maxAge).toBeLessThanOrEqual(2);
      await new Promise((r) => setTimeout(r, 1500));
      const second = await currentList(service);
      expect(second.list_number).toBeGreaterThan(first.list_number);
      expect(second['entries']).toEqual(first.entries);
      expect(Date.parse(String(second['next_update']))).toBeGreaterThan(Date.parse(first.next_update));
    } finally {
      await service.close();
      dir.remove();
    }
  });
});

async function sha256Hex(text: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
