// Every service reads JSON bodies strictly: a member name twice in one object, a number with no finite
// value or a lone surrogate is refused before any handler runs. Issue 12 item 2 (P2), for every route.
import { encodeCbor } from '@proto/service-kit/cbor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService, TOKEN } from '../../src/test-support.ts';

let service: RunningService;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service.close());

async function postRaw(path: string, text: string) {
  const res = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

describe('JSON bodies with no canonical reading are refused on every route', () => {
  it('a revocation naming one agent to a first-wins reader and another to JSON.parse: 400 E001', async () => {
    const text =
      '{"agent_id":"agent-innocent-0001","agent_id":"agent-target-0001","reason":"key compromise"}';
    const answer = await postRaw('/revocations', text);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('PROTO-E001');
    expect(answer.body.error?.message).toMatch(/no canonical form.*agent_id/);
  });

  it.each([
    ['a number with no finite value', '{"agent_id":"agent-x-0001","reason":"r","n":1e400}'],
    ['a lone surrogate', '{"agent_id":"agent-x-0001","reason":"\\ud800"}'],
    [
      'a duplicate hidden behind an escape',
      '{"agent_id":"agent-a-0001","agent\\u005fid":"agent-b-0001","reason":"r"}',
    ],
  ])('%s: 400 E001, nothing revoked', async (_name, text) => {
    const answer = await postRaw('/revocations', text);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('PROTO-E001');
  });

  it('prototype-polluting member names are refused, and well-formed bodies still pass', async () => {
    const polluted = await postRaw(
      '/revocations',
      '{"agent_id":"agent-x-0001","reason":"r","__proto__":{"a":1}}',
    );
    expect(polluted.status).toBe(400);
    const fine = await postRaw('/revocations', '{"agent_id":"agent-fine-0001","reason":"key compromise"}');
    expect(fine.status).toBeLessThan(300);
  });

  it('a constructor.prototype member is refused over CBOR as over JSON: 400 E001, nothing revoked', async () => {
    const body = { agent_id: 'agent-proto-0001', reason: 'r', constructor: { prototype: { admin: true } } };
    for (const [type, bytes] of [
      ['application/json', JSON.stringify(body)],
      ['application/cbor', encodeCbor(body)],
    ] as const) {
      const res = await fetch(`${service.url}/revocations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type, accept: 'application/json' },
        body: bytes,
      });
      const answer = (await res.json()) as { error?: { code: string; message: string } };
      expect([type, res.status]).toEqual([type, 400]);
      expect(answer.error?.code).toBe('PROTO-E001');
      expect(answer.error?.message).toMatch(/prototype/);
    }
  });
});
