// Hostile suite, P227: the strict CBOR decoder costs time linear in a map's members. Each byte-string member of a
// map (renamed `k_b64`, PROTOCOL §8.2) was remembered in an array that every later member's name was searched in:
// a map of 80,000 empty byte strings (a 400 KB body) cost 80,000²/2 string comparisons, on the event loop (the
// cache key is computed there).
import { encodeCbor } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let app: RunningApp;

beforeAll(async () => {
  app = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0', MAX_EVENT_LOOP_DELAY_MS: '0' });
});
afterAll(() => app.close());

const MEMBERS = 80_000;

/** A CBOR head of `major` with argument `n` (n < 2^32). */
function head(major: number, n: number): number[] {
  if (n < 24) return [(major << 5) | n];
  if (n < 0x100) return [(major << 5) | 24, n];
  if (n < 0x10000) return [(major << 5) | 25, n >> 8, n & 0xff];
  return [(major << 5) | 26, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

/**
 * `{"signed_bundle": {<the bundle's members>, "pad": {"0": h'', "1": h'', …}}}` as CBOR bytes. The pad sits inside the
 * signed bundle, a member no signature covers: a request member /verify does not read is refused before (P272).
 */
function requestWithPad(signedBundle: unknown): Uint8Array {
  const bundle = encodeCbor(signedBundle) as Uint8Array;
  // The bundle's map head (major type 5, fewer than 24 members: one byte) gets one member more, the pad, at its end.
  const members = bundle[0]! & 0x1f;
  if (bundle[0]! >> 5 !== 5 || members >= 24) throw new Error('expected a small CBOR map');
  const bytes: number[] = [...head(5, 1)];
  const text = (s: string) => {
    const b = Buffer.from(s);
    bytes.push(...head(3, b.length), ...b);
  };
  text('signed_bundle');
  bytes.push(...head(5, members + 1), ...bundle.subarray(1));
  text('pad');
  bytes.push(...head(5, MEMBERS));
  for (let i = 0; i < MEMBERS; i++) {
    text(i.toString(36));
    bytes.push(0x40); // an empty byte string
  }
  return Uint8Array.from(bytes);
}

describe('P227: a CBOR map of many byte strings costs the service time linear in its members', () => {
  it('a /verify CBOR body whose map holds 80,000 byte strings is answered within seconds, and the service stays live', async () => {
    const { signed_bundle } = sampleBundle({ tier: 'routine', classicalOnly: true });
    const body = requestWithPad(signed_bundle);
    const started = performance.now();
    const answer = fetch(`${app.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/cbor' },
      body,
    });
    const health = await fetch(`${app.url}/health`);
    const healthAfterMs = performance.now() - started;
    expect(health.status).toBe(200);
    const res = await answer;
    const json = (await res.json()) as Record<string, unknown>;
    const elapsedMs = performance.now() - started;
    // The padding is no part of the bundle: the verdict is the bundle's.
    expect(res.status).toBe(200);
    expect(json, JSON.stringify(json).slice(0, 500)).toMatchObject({ verified: true, version: '2.0' });
    // Before P227: about 12 s on this host for the answer and for /health behind it (3 s at 40,000 members,
    // quadratic). Now well under a second; 4 s leaves room for a loaded machine.
    expect(elapsedMs).toBeLessThan(4_000);
    expect(healthAfterMs).toBeLessThan(4_000);
  }, 120_000);
});
