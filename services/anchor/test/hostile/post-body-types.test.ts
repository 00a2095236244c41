// P251: POST /anchor's body members are strings (SPEC.md "POST {base_url}/anchor": `bundle_hash` a string, `chain` a
// string). Fastify's schema validation coerces (`coerceTypes: 'array'`): a one-element array was read as its element,
// `null` as "" and a number or a boolean as its text, so `{"bundle_hash": ["sha256:…"]}` was queued and anchored.
// Now a member of another JSON type is 400 PROTO-E001 naming it, and nothing is queued. The real service over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashOf } from '../../src/testing/app.ts';
import { type AnchorPosts, expectRefusalNaming, NOWHERE, startAnchorPosts } from './testing/anchor-posts.ts';

const secondaryOf = (text: string) => `sha3-256:${hashOf(text).slice('sha256:'.length)}`;

describe('P251: POST /anchor takes strings, never arrays or other JSON types in their place', () => {
  let service: AnchorPosts;
  const post = (body: Record<string, unknown>) => service.post(body);
  const queued = (bundleHash: string) => service.queued(bundleHash);

  beforeAll(async () => {
    service = await startAnchorPosts('anchor-post-body-types', {
      TL_URL: NOWHERE,
      ETH_RPC_URL: NOWHERE,
      ETH_CHAIN_ID: '31337',
      ETH_CONTRACT: `0x${'11'.repeat(20)}`,
      ETH_PRIVATE_KEY: `0x${'22'.repeat(32)}`,
    });
  }, 60_000);

  afterAll(async () => {
    await service?.close();
  });

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
    expectRefusalNaming(await post(body(h)), member);
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
