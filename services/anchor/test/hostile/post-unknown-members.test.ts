// P270: POST /anchor's body is `{bundle_hash, bundle_hash_secondary?, chain?}` (SPEC.md "POST {base_url}/anchor"). Its
// schema left other members open, so `{"bundle_hash": …, "chian": "ethereum"}` was queued on the default chain
// (202), and a `confirmations` or `network` the caller hoped would steer the write was ignored. Now 400 PROTO-E001
// naming the member, nothing queued. The real service over HTTP.
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashOf, OPERATOR, testApp } from '../../src/testing/app.ts';

/** Nothing listens on port 9: POST /anchor only queues, which is all these requests need. */
const NOWHERE = 'http://127.0.0.1:9';

describe('P270: POST /anchor refuses members it does not read', () => {
  let target: StoreTarget;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    target = await createStoreTarget('sqlite', 'anchor-post-unknown-members');
    app = await testApp({ TL_URL: NOWHERE }, await target.open());
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await target?.cleanup();
  });

  const post = async (body: Record<string, unknown>) => {
    const res = await fetch(`${base}/anchor`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, Record<string, unknown>> };
  };
  const queued = async (bundleHash: string) => (await fetch(`${base}/anchor/${bundleHash}`)).status;

  it.each([
    ['chian', 'ethereum'],
    ['confirmations', 0],
    ['network', 'testnet'],
  ])('a %s member is 400 PROTO-E001 naming it, and nothing is queued', async (member, value) => {
    const h = hashOf(`post unknown member: ${member}`);
    const { status, body } = await post({ bundle_hash: h, [member]: value });
    expect(status).toBe(400);
    expect(body['error']).toMatchObject({ code: 'PROTO-E001', retryable: false });
    expect(String(body['error']?.['message'])).toContain(`"${member}"`);
    expect(await queued(h)).toBe(404);
  });

  it('the known members alone are queued (control)', async () => {
    const h = hashOf('post unknown member: control');
    expect((await post({ bundle_hash: h, chain: 'transparency-log' })).status).toBe(202);
    expect(await queued(h)).toBe(200);
  });
});
