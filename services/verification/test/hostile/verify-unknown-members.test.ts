// P272: a /verify request is `{signed_bundle, public_key_b64?, anchor_receipt?, jurisdiction_attestation?}` (SPEC.md
// "POST /verify", D19, D21). Any other member was ignored: `anchor_reciept` (a typo) answered `verified: true` with
// the anchor check skipped, and a `min_tier` or `policy` a client believes it can ask for changed nothing while the
// caller read the verdict as given under it. Now 400 with the /verify-shaped body (PROTO-E001, check `request`)
// naming the member, in JSON and CBOR and as a /verify/batch item of its own. The bundle itself is not held to this:
// members inside `signed_bundle` keep their own rules (uncovered members, P149). The real service over HTTP.
import { buildSignedBundle } from '@proto/core';
import { encodeCbor } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

let service: RunningApp;
beforeAll(async () => {
  service = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0' });
}, 60_000);
afterAll(() => service?.close());

const bundle = buildSignedBundle({ tier: 'routine', entries: 2 }).signed_bundle;

const post = async (body: string | Uint8Array, type = 'application/json') => {
  const res = await fetch(`${service.url}/verify`, {
    method: 'POST',
    headers: { 'content-type': type },
    body,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

const unknownMember = (member: string) => {
  const message = `/verify reads no member ${JSON.stringify(member)} (it reads signed_bundle, public_key_b64, anchor_receipt, jurisdiction_attestation)`;
  return {
    verified: false,
    errors: [message],
    error_details: [{ code: 'PROTO-E001', check: 'request', message, retryable: false }],
  };
};

describe('P272: /verify refuses request members it does not read', () => {
  it.each([
    ['anchor_reciept', { chain: 'bitcoin', tx_id: 'ab'.repeat(32), block_height: 1 }],
    ['min_tier', 'maximum'],
    ['policy', { mode: 'hybrid_required' }],
  ])('%s beside the bundle: 400 E001 naming it, JSON and CBOR', async (member, value) => {
    const request = { signed_bundle: bundle, [member]: value };
    for (const [body, type] of [
      [JSON.stringify(request), 'application/json'],
      [encodeCbor(request), 'application/cbor'],
    ] as const) {
      const answer = await post(body, type);
      expect(answer.status, JSON.stringify(answer.json)).toBe(400);
      expect(answer.json).toEqual(unknownMember(member));
    }
  });

  it('a /verify/batch item with one gets its own 400 body, the others their verdicts', async () => {
    const good = JSON.stringify({ signed_bundle: bundle });
    const bad = JSON.stringify({ signed_bundle: bundle, min_tier: 'maximum' });
    const res = await fetch(`${service.url}/verify/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: `${good}\n${bad}\n${good}\n`,
    });
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l['verified'])).toEqual([true, false, true]);
    expect(lines[1]).toEqual(unknownMember('min_tier'));
  });

  it('a member inside the bundle is not a request member: it keeps the uncovered rules (control)', async () => {
    const answer = await post(JSON.stringify({ signed_bundle: { ...bundle, note: 'not signed' } }));
    expect(answer.status).toBe(200);
    expect(answer.json['verified']).toBe(true);
  });
});
