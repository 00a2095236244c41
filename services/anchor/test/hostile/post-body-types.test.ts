// P251: POST /anchor's body members are strings (SPEC.md "POST {base_url}/anchor": `bundle_hash` a string, `chain` a
// string). Fastify's schema validation coerces (`coerceTypes: 'array'`): a one-element array was read as its element,
// `null` as "" and a number or a boolean as its text, so `{"bundle_hash": ["sha256:…"]}` was queued and anchored.
// Now a member of another JSON type is 400 PROTO-E001 naming it, and nothing is queued. The real service over HTTP.
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashOf, OPERATOR, testApp } from '../../src/testing/app.ts';

/** Nothing listens on port 9: POST /anchor only queues, which is all these requests need. */
const NOWHERE = 'http://127.0.0.1:9';
const secondaryOf = (text: string) => `sha3-256:${hashOf(text).slice('sha256:'.length)}`;

describe('P251: POST /anchor takes strings, never arrays or other JSON types in their place', () => {
  let target: StoreTarget;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    target = await createStoreTarget('sqlite', 'anchor-post-body-types');
    app = await testApp(
      {
        TL_URL: NOWHERE,
        ETH_RPC_URL: NOWHERE,
        ETH_CHAIN_ID: '31337',
        ETH_CONTRACT: `0x${'11'.repeat(20)}`,
        ETH_PRIVATE_KEY: `0x${'22'.repeat(32)}`,
      },
      await target.open(),
    );
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
    ['bundle_hash', 'a one-element array', (h: string) => ({ bundle_hash: [h], chain: 'transparency-log' })],
    ['chain', 'a one-element array', (h: string) => ({ bundle_hash: h, chain: ['transparency-log'] })],
    [
      'bundle_hash_secondary',
      'a one-element array',
      (h: string) => ({ bundle_hash: h, bundle_hash_secondary: [secondaryOf(h)], chain: 'ethereum' }),
    ],
    ['chain', 'a nested one-element array', (h: string) => ({ bundle_hash: h, chain: [['ethereum']] })],
    ['chain', 'null', (h: string) => ({ bundle_hash: h, chain: null })],
    ['chain', 'a number', (h: string) => ({ bundle_hash: h, chain: 7 })],
    ['chain', 'a boolean', (h: string) => ({ bundle_hash: h, chain: true })],
    [
      'bundle_hash_secondary',
      'null',
      (h: string) => ({ bundle_hash: h, bundle_hash_secondary: null, chain: 'ethereum' }),
    ],
  ])('%s as %s is 400 PROTO-E001 naming it, and nothing is queued', async (member, what, body) => {
    const h = hashOf(`post body types: ${member} as ${what}`);
    const { status, body: answer } = await post(body(h));
    expect(status).toBe(400);
    expect(answer['error']).toMatchObject({ code: 'PROTO-E001', retryable: false });
    expect(String(answer['error']?.['message'])).toContain(member);
    expect(await queued(h)).toBe(404);
  });

  it('the same members as strings are queued (control)', async () => {
    const h = hashOf('post body types: strings');
    expect((await post({ bundle_hash: h, chain: 'transparency-log' })).status).toBe(202);
    const h2 = hashOf('post body types: strings, with a secondary');
    expect(
      (await post({ bundle_hash: h2, bundle_hash_secondary: secondaryOf(h2), chain: 'ethereum' })).status,
    ).toBe(202);
    expect(await queued(h)).toBe(200);
    expect(await queued(h2)).toBe(200);
  });
});
