// Answers written by the worker (P68) over HTTP: byte for byte what the main thread's serializers send
// for the same verdict (a cache hit is still finalized and serialized on the main thread), with the same
// headers, JSON and CBOR, verified and refused; evidence keeps the main thread's checks. Issue 14 item 1.
import { decodeCbor, encodeCbor } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, sampleBundle, startApp } from './test-support.ts';

let cached: RunningApp;
let uncached: RunningApp;

beforeAll(async () => {
  [cached, uncached] = await Promise.all([
    // No load shedding: a busy test machine must not turn an answer into a 503.
    startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0', MAX_EVENT_LOOP_DELAY_MS: '0' }),
    startApp({
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
    }),
  ]);
});
afterAll(() => Promise.all([cached.close(), uncached.close()]));

/**
 * A verified V2 request, a refused one that also carries warnings (a member no signature covers), and a
 * V1 one (JSON only: its sample holds a float, which CBOR does not carry).
 */
function requests(format: 'json' | 'cbor' = 'json'): { name: string; body: Record<string, unknown> }[] {
  const good = sampleBundle({ tier: 'elevated', entries: 3 }).signed_bundle as Record<string, unknown>;
  const bad = structuredClone(sampleBundle({ tier: 'standard', entries: 2 }).signed_bundle) as {
    bundle: { audit_entries: Record<string, unknown>[] };
  } & Record<string, unknown>;
  bad.bundle.audit_entries[0]!['outcome'] = 'something_else';
  bad['note'] = 'not covered by any signature';
  const v1 = sampleBundle({ version: '1.0', entries: 2 }).signed_bundle as Record<string, unknown>;
  return [
    { name: 'verified V2', body: { signed_bundle: good } },
    { name: 'refused V2 with warnings', body: { signed_bundle: bad } },
    ...(format === 'json' ? [{ name: 'V1', body: { signed_bundle: v1 } }] : []),
  ];
}

async function post(url: string, body: Record<string, unknown>, format: 'json' | 'cbor') {
  const type = format === 'cbor' ? 'application/cbor' : 'application/json';
  const res = await fetch(`${url}/verify`, {
    method: 'POST',
    headers: { 'content-type': type, accept: type },
    body: format === 'cbor' ? encodeCbor(body) : JSON.stringify(body),
  });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    vary: res.headers.get('vary'),
    cache: res.headers.get('x-verification-cache'),
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

describe('answers written in the worker', () => {
  for (const format of ['json', 'cbor'] as const) {
    it(`are the bytes and headers the main thread sends for the same verdict (${format})`, async () => {
      for (const { name, body } of requests(format)) {
        // The miss is answered by the worker's bytes; the hit is finalized and serialized here.
        const miss = await post(cached.url, body, format);
        expect([name, miss.status]).toEqual([name, 200]);
        const hit = await post(cached.url, body, format);
        expect([name, miss.cache, hit.cache]).toEqual([name, 'miss', 'hit']);
        expect([name, miss.status, miss.type, miss.vary]).toEqual([name, hit.status, hit.type, hit.vary]);
        expect(miss.vary).toMatch(/accept/i);
        expect([name, miss.bytes.toString('hex')]).toEqual([name, hit.bytes.toString('hex')]);
        // The same with the cache off (the worker parses the body itself).
        const fresh = await post(uncached.url, body, format);
        expect([name, fresh.type, fresh.bytes.toString('hex')]).toEqual([
          name,
          hit.type,
          hit.bytes.toString('hex'),
        ]);
        const answer = (format === 'cbor' ? decodeCbor(miss.bytes) : JSON.parse(miss.bytes.toString())) as {
          verified: boolean;
        };
        expect([name, answer.verified]).toEqual([name, name === 'verified V2' || name === 'V1']);
      }
    });
  }

  it('leave a request with evidence to the main thread, whose checks still answer', async () => {
    const body = requests()[0]!.body;
    const withReceipt = { ...body, anchor_receipt: { not: 'a receipt' } };
    const res = await post(uncached.url, withReceipt, 'json');
    const answer = JSON.parse(res.bytes.toString()) as { checks: Record<string, string> };
    expect(res.status).toBe(200);
    expect(answer.checks['anchor']).toBeDefined();
  });

  it('are the batch lines the main thread would write (NDJSON and CBOR sequence)', async () => {
    const bodies = requests('cbor').map((r) => r.body);
    const ndjson = await fetch(`${uncached.url}/verify/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: bodies.map((b) => JSON.stringify(b)).join('\n'),
    });
    const lines = (await ndjson.text()).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toBe(JSON.stringify(JSON.parse(line)));
    const single = await post(uncached.url, bodies[0]!, 'json');
    expect(JSON.parse(lines[0]!)).toEqual(JSON.parse(single.bytes.toString()));

    const seq = await fetch(`${uncached.url}/verify/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/cbor-seq', accept: 'application/cbor-seq' },
      body: Buffer.concat(bodies.map((b) => encodeCbor(b))),
    });
    const bytes = Buffer.from(await seq.arrayBuffer());
    const first = await post(uncached.url, bodies[0]!, 'cbor');
    expect(bytes.subarray(0, first.bytes.length).toString('hex')).toBe(first.bytes.toString('hex'));
  });
});
