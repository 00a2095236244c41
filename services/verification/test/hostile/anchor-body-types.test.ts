// P259: POST /anchor's members are JSON strings. Fastify validated bodies with `coerceTypes: 'array'`, so
// `{"bundle_hash": ["sha256:…"]}` was read as its element and forwarded to the anchor service as a string. Now
// bodies are validated without coercion in service-kit: 400 PROTO-E001 naming the member, nothing forwarded. The
// real verification service over HTTP; the anchor service is a local node:http server that counts what reaches it.
import { answerJson, type HostileFront, startHostileFront } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

const HASH = `sha256:${'ab'.repeat(32)}`;
let upstream: HostileFront;
let verifier: RunningApp;
let forwarded = 0;

beforeAll(async () => {
  upstream = await startHostileFront((_request, res) => {
    forwarded += 1;
    return answerJson(res, 202, JSON.stringify({ accepted: true, status: 'pending' }));
  });
  verifier = await startApp({ ANCHOR_SERVICE_URL: upstream.url, VERIFY_RATE_LIMIT_PER_MINUTE: '0' });
});

afterAll(async () => {
  await verifier?.close();
  await upstream?.close();
});

const postAnchor = async (body: unknown) => {
  const res = await fetch(`${verifier.url}/anchor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer caller-token' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { error?: { code: string; message: string } } };
};

describe('P259: POST /anchor forwards strings only', () => {
  it.each([
    ['bundle_hash', 'a one-element array', { bundle_hash: [HASH] }],
    ['chain', 'a one-element array', { bundle_hash: HASH, chain: ['bitcoin'] }],
    ['chain', 'a number', { bundle_hash: HASH, chain: 7 }],
    ['chain', 'a boolean', { bundle_hash: HASH, chain: false }],
  ])('%s as %s: 400 PROTO-E001 naming it, nothing forwarded', async (member, _what, body) => {
    const before = forwarded;
    const answer = await postAnchor(body);
    expect(answer.status).toBe(400);
    expect(answer.json.error?.code).toBe('PROTO-E001');
    expect(answer.json.error?.message).toContain(`${member} must be string`);
    expect(forwarded).toBe(before);
  });

  it('the same members as strings are forwarded (control)', async () => {
    const before = forwarded;
    expect((await postAnchor({ bundle_hash: HASH, chain: 'bitcoin' })).status).toBe(202);
    expect(forwarded).toBe(before + 1);
  });
});
