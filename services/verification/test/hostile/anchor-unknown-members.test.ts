// P270: the verification service's POST /anchor forwards `{bundle_hash, bundle_hash_secondary?, chain?}` to the anchor
// service (SPEC.md "POST /anchor (optional)"). Its schema left other members open and the body was forwarded as
// sent, so whatever a caller added reached the anchor service under the caller's token. Now a member neither service
// reads is 400 PROTO-E001 naming it, and nothing is forwarded; V2's `bundle_hash_secondary` is still forwarded. The
// real verification service over HTTP; the anchor service is a local node:http server that keeps what reaches it.
import { answerJson, type HostileFront, startHostileFront } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

const HASH = `sha256:${'ab'.repeat(32)}`;
const SECONDARY = `sha3-256:${'cd'.repeat(32)}`;
let upstream: HostileFront;
let verifier: RunningApp;
const forwarded: string[] = [];

beforeAll(async () => {
  upstream = await startHostileFront((request, res) => {
    forwarded.push(request.text());
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

describe('P270: POST /anchor forwards the members SPEC names, nothing else', () => {
  it.each([
    ['chian', 'bitcoin'],
    ['callback_url', 'http://169.254.169.254/'],
  ])('a %s member: 400 PROTO-E001 naming it, nothing forwarded', async (member, value) => {
    const before = forwarded.length;
    const answer = await postAnchor({ bundle_hash: HASH, [member]: value });
    expect(answer.status).toBe(400);
    expect(answer.json.error?.code).toBe('PROTO-E001');
    expect(answer.json.error?.message).toContain(`"${member}"`);
    expect(forwarded.length).toBe(before);
  });

  it('bundle_hash_secondary is forwarded as sent (control)', async () => {
    const before = forwarded.length;
    const body = { bundle_hash: HASH, bundle_hash_secondary: SECONDARY, chain: 'bitcoin' };
    expect((await postAnchor(body)).status).toBe(202);
    expect(forwarded.length).toBe(before + 1);
    expect(JSON.parse(forwarded.at(-1) ?? '{}')).toEqual(body);
  });
});
