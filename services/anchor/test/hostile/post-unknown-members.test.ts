// P270: POST /anchor's body is `{bundle_hash, bundle_hash_secondary?, chain?}` (SPEC.md "POST {base_url}/anchor"). Its
// schema left other members open, so `{"bundle_hash": …, "chian": "ethereum"}` was queued on the default chain
// (202), and a `confirmations` or `network` the caller hoped would steer the write was ignored. Now 400 PROTO-E001
// naming the member, nothing queued. The real service over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashOf } from '../../src/testing/app.ts';
import { type AnchorPosts, expectRefusalNaming, NOWHERE, startAnchorPosts } from './testing/anchor-posts.ts';

describe('P270: POST /anchor refuses members it does not read', () => {
  let service: AnchorPosts;
  const post = (body: Record<string, unknown>) => service.post(body);
  const queued = (bundleHash: string) => service.queued(bundleHash);

  beforeAll(async () => {
    service = await startAnchorPosts('anchor-post-unknown-members', { TL_URL: NOWHERE });
  }, 60_000);

  afterAll(async () => {
    await service?.close();
  });

  it.each([
    ['chian', 'ethereum'],
    ['confirmations', 0],
    ['network', 'testnet'],
  ])('a %s member is 400 PROTO-E001 naming it, and nothing is queued', async (member, value) => {
    const h = hashOf(`post unknown member: ${member}`);
    expectRefusalNaming(await post({ bundle_hash: h, [member]: value }), `"${member}"`);
    expect(await queued(h)).toBe(404);
  });

  it('the known members alone are queued (control)', async () => {
    const h = hashOf('post unknown member: control');
    expect((await post({ bundle_hash: h, chain: 'transparency-log' })).status).toBe(202);
    expect(await queued(h)).toBe(200);
  });
});
