// Three readers of a /verify or /verify/batch body that did not agree with the others (brief "edges"):
// - P336: a member named `__proto__` was read by /verify's JSON reader (and each JSON batch item) as an ordinary
//   member (inside the bundle: uncovered, ignored) while the CBOR decoder and service-kit's JSON parser refuse it.
//   Now every reader refuses it, at any depth, with a 400 naming it.
// - P337: a batch array element led by U+FEFF (`[\uFEFF{…}]`) was answered, its BOM dropped by the UTF-8 decoder,
//   although no JSON parser reads that array. Now the array is refused whole, as an empty element is (P175).
// - P338: the 400 for a member a service does not read carried Ajv's generic text in `details`; it names it now.
// The real verification service over HTTP.
import { buildSignedBundle } from '@proto/core';
import { encodeCbor } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

let service: RunningApp;
beforeAll(async () => {
  service = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0', VERIFY_WORKERS: '1' });
}, 60_000);
afterAll(() => service?.close());

const bundle = buildSignedBundle({ tier: 'routine', entries: 2 }).signed_bundle;
const bundleText = JSON.stringify(bundle);
/** The bundle's text with a `__proto__` member first, as a caller writes it (JSON.stringify cannot). */
const withProto = `{"__proto__":{"x":1},${bundleText.slice(1)}`;

const post = async (path: string, body: string | Uint8Array, type: string) => {
  const res = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': type },
    body,
  });
  return { status: res.status, text: await res.text() };
};

describe('P336: a `__proto__` member is refused by every reader', () => {
  it.each([
    ['inside the bundle', `{"signed_bundle":${withProto}}`],
    ['beside the bundle', `{"__proto__":{},"signed_bundle":${bundleText}}`],
  ])('/verify JSON, %s: 400 E001 naming it', async (_where, body) => {
    const answer = await post('/verify', body, 'application/json');
    expect(answer.status, answer.text).toBe(400);
    const json = JSON.parse(answer.text) as {
      verified: boolean;
      error_details: { code: string; message: string }[];
    };
    expect(json.verified).toBe(false);
    expect(json.error_details[0]?.code).toBe('PROTO-E001');
    expect(json.error_details[0]?.message).toContain('__proto__');
  });

  it('/verify CBOR: 400 naming it (control: the decoder already refused it)', async () => {
    const request = { signed_bundle: JSON.parse(withProto) as unknown };
    const answer = await post('/verify', encodeCbor(request), 'application/cbor');
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('__proto__');
  });

  it.each([
    ['NDJSON', 'application/x-ndjson', (items: string[]) => `${items.join('\n')}\n`],
    ['array', 'application/json', (items: string[]) => `[${items.join(',')}]`],
  ])(
    '/verify/batch %s: the item with it gets its own 400 body, the others their verdicts',
    async (_f, type, join) => {
      const good = JSON.stringify({ signed_bundle: bundle });
      const answer = await post('/verify/batch', join([good, `{"signed_bundle":${withProto}}`, good]), type);
      expect(answer.status).toBe(200);
      const lines = answer.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { verified: boolean; errors?: string[] });
      expect(lines.map((l) => l.verified)).toEqual([true, false, true]);
      expect(lines[1]?.errors?.[0]).toContain('__proto__');
    },
  );
});

describe('P337: a JSON batch array element led by a byte-order mark', () => {
  it.each([
    ['first element', (item: string) => `[\uFEFF${item}]`],
    ['second element', (item: string) => `[${item}, \uFEFF${item}]`],
  ])('%s: the array is refused whole with 400', async (_where, build) => {
    const answer = await post(
      '/verify/batch',
      build(JSON.stringify({ signed_bundle: bundle })),
      'application/json',
    );
    expect(answer.status, answer.text).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({
      error: { code: 'BAD_REQUEST', message: expect.stringMatching(/byte-order mark/) },
    });
  });

  it('a U+FEFF inside a string of an element is text, not a mark (control)', async () => {
    const answer = await post('/verify/batch', `[{"signed_bundle":${bundleText}}]`, 'application/json');
    expect(answer.status).toBe(200);
    const inString = await post('/verify/batch', '[{"x":"\uFEFF"}]', 'application/json');
    expect(inString.status).toBe(200);
  });
});

describe('P338: the unknown-member 400 names the member in `details` too', () => {
  it('POST /anchor with `chian`: details[0].message names it', async () => {
    const res = await fetch(`${service.url}/anchor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer caller-token' },
      body: JSON.stringify({ bundle_hash: `sha256:${'ab'.repeat(32)}`, chian: 'bitcoin' }),
    });
    const json = (await res.json()) as { error: { code: string; details?: { message: string }[] } };
    expect(res.status).toBe(400);
    expect(json.error.code).toBe('PROTO-E001');
    expect(json.error.details?.[0]?.message).toContain('"chian"');
  });
});
