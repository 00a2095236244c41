// P271: `anchor_receipt` and `jurisdiction_attestation` beside a bundle are objects (SPEC.md "Anchor receipt",
// "Jurisdiction attestation"; the /verify request schema). One of another JSON type (a number, a string, an array, a
// boolean) went on to the external checks, which answered 200 with a warning or a failed check as if the evidence
// were at fault, not the request; `public_key_b64: 5` is a 400 since P248. Now 400 with the /verify-shaped body
// (PROTO-E001, check `request`) in JSON and CBOR, cache on and off, and as its own item of /verify/batch (the
// others still verified). `null` still counts as not supplied (bundle-subject.ts `evidenceOf`). The real service.
import { buildSignedBundle } from '@proto/core';
import { encodeCbor } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

let cached: RunningApp;
let uncached: RunningApp;
beforeAll(async () => {
  cached = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0' });
  uncached = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0', VERIFICATION_CACHE_MAX_ENTRIES: '0' });
}, 60_000);
afterAll(async () => {
  await cached?.close();
  await uncached?.close();
});

// V2: its JSON has no fractions, so CBOR carries it too.
const bundle = buildSignedBundle({ tier: 'routine', entries: 2 }).signed_bundle;

const post = async (url: string, body: string | Uint8Array, type: string) => {
  const res = await fetch(`${url}/verify`, { method: 'POST', headers: { 'content-type': type }, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

const badRequest = (message: string) => ({
  verified: false,
  errors: [message],
  error_details: [{ code: 'PROTO-E001', check: 'request', message, retryable: false }],
});

const WRONG: readonly [string, unknown][] = [
  ['a number', 5],
  ['a string', 'sha256:abc'],
  ['an array', [{ chain: 'bitcoin' }]],
  ['a boolean', true],
];

describe('P271: /verify takes anchor_receipt and jurisdiction_attestation as objects only', () => {
  for (const member of ['anchor_receipt', 'jurisdiction_attestation'] as const) {
    const message = `${member} must be an object when present`;
    it.each(WRONG)(`${member} as %s: 400 E001 in JSON and CBOR, cache on and off`, async (_what, value) => {
      const request = { signed_bundle: bundle, [member]: value };
      for (const target of [cached, uncached, cached]) {
        const json = await post(target.url, JSON.stringify(request), 'application/json');
        expect(json.status, JSON.stringify(json.json)).toBe(400);
        expect(json.json).toEqual(badRequest(message));
        const cbor = await post(target.url, encodeCbor(request), 'application/cbor');
        expect(cbor.status, JSON.stringify(cbor.json)).toBe(400);
        expect(cbor.json).toEqual(badRequest(message));
      }
    });
  }

  it('null and an absent member still verify (control)', async () => {
    for (const request of [
      { signed_bundle: bundle },
      { signed_bundle: bundle, anchor_receipt: null, jurisdiction_attestation: null },
    ]) {
      const answer = await post(uncached.url, JSON.stringify(request), 'application/json');
      expect(answer.status).toBe(200);
      expect(answer.json['verified']).toBe(true);
    }
  });

  it('a /verify/batch item with a wrongly typed one gets its own 400 body, the others their verdicts', async () => {
    const good = JSON.stringify({ signed_bundle: bundle });
    const receipt = JSON.stringify({ signed_bundle: bundle, anchor_receipt: 7 });
    const attestation = JSON.stringify({ signed_bundle: bundle, jurisdiction_attestation: ['x'] });
    const res = await fetch(`${uncached.url}/verify/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: `${good}\n${receipt}\n${attestation}\n${good}\n`,
    });
    expect(res.status).toBe(200);
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(4);
    expect(lines[0]?.['verified']).toBe(true);
    expect(lines[1]).toEqual(badRequest('anchor_receipt must be an object when present'));
    expect(lines[2]).toEqual(badRequest('jurisdiction_attestation must be an object when present'));
    expect(lines[3]?.['verified']).toBe(true);
  });
});
