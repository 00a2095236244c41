// P233 over HTTP against the real verification service: `q=0` in Accept means "not acceptable" (RFC 9110 §12.4.2),
// and the most specific range that matches decides (§12.5.1). A client that says it cannot read CBOR got CBOR: a
// specific `application/cbor;q=0` scored above nothing, and `*/*` outranked it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0' });
});
afterAll(() => app?.close());

const body = JSON.stringify({ signed_bundle: sampleBundle({ tier: 'routine' }).signed_bundle });

async function typeFor(path: string, accept: string, payload: string, contentType: string): Promise<string> {
  const res = await fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType, accept },
    body: payload,
  });
  await res.arrayBuffer();
  expect(res.status, accept).toBe(200);
  return res.headers.get('content-type') ?? '';
}

describe('P233: Accept with q=0 is "not acceptable", the most specific range decides', () => {
  it.each([
    'application/cbor;q=0',
    'application/cbor;q=0, application/json;q=0.1',
    '*/*, application/cbor;q=0',
    'application/*, application/cbor;q=0',
    'application/cbor;q=NaN',
  ])('/verify with Accept %s answers JSON', async (accept) => {
    expect(await typeFor('/verify', accept, body, 'application/json')).toMatch(/^application\/json/);
  });

  it.each(['application/cbor', 'application/cbor, */*', 'application/json;q=0.5, application/cbor'])(
    '/verify with Accept %s answers CBOR (the controls)',
    async (accept) => {
      expect(await typeFor('/verify', accept, body, 'application/json')).toMatch(/^application\/cbor/);
    },
  );

  it('/verify/batch with Accept application/cbor-seq;q=0 answers NDJSON; with application/cbor-seq, CBOR', async () => {
    const batch = `${body}\n`;
    expect(await typeFor('/verify/batch', 'application/cbor-seq;q=0', batch, 'application/x-ndjson')).toMatch(
      /ndjson/,
    );
    expect(await typeFor('/verify/batch', 'application/cbor-seq', batch, 'application/x-ndjson')).toMatch(
      /cbor-seq/,
    );
  });
});
