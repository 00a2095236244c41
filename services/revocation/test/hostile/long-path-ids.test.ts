// Agent ids may be 256 characters (SPEC.md Limits); the router must not cut them at its own 100, and a
// URL it cannot route (an id past any limit, a broken %-escape) still gets the shared JSON error with a
// code, the request id and the security headers, not Fastify's bare body. Brief "redservices"; P152.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService, TOKEN } from '../../src/test-support.ts';

let service: RunningService;
beforeAll(async () => {
  service = await startService({ timer: false });
});
afterAll(async () => {
  await service?.close();
});

const auth = { authorization: `Bearer ${TOKEN}` };

async function get(path: string) {
  const response = await fetch(`${service.url}${path}`, { headers: auth });
  const text = await response.text();
  return { response, text, body: JSON.parse(text) as { error?: { code?: string } } };
}

describe('agent ids in paths', () => {
  it('an agent id of 256 characters is revoked and then looked up by its path', async () => {
    const agent = `did:web:agent.example:${'a'.repeat(256 - 'did:web:agent.example:'.length)}`;
    expect(agent).toHaveLength(256);
    const revoked = await fetch(`${service.url}/revocations`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agent, reason: 'key compromise' }),
    });
    expect(revoked.status).toBe(201);
    await revoked.arrayBuffer();
    const found = await get(`/revocations/${agent}`);
    expect(found.response.status).toBe(200);
    expect(found.text).toContain(agent);
  });

  it('an id past any limit and a broken %-escape get the shared error shape, never the framework’s', async () => {
    const refusals = [
      [`/revocations/${'a'.repeat(5000)}`, 'INVALID_ID'],
      ['/revocations/%E0%A4%A', 'BAD_REQUEST'],
      ['/revocations/%zz', 'BAD_REQUEST'],
    ] as const;
    for (const [path, code] of refusals) {
      const { response, body, text } = await get(path);
      expect([path.slice(0, 20), response.status, body.error?.code]).toEqual([path.slice(0, 20), 400, code]);
      expect(text).not.toContain('FST_ERR');
      expect(response.headers.get('x-request-id')).toMatch(/\S/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});
