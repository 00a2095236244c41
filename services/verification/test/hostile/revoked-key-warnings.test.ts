// P283 over HTTP against the real verification service: a passport may list any number of revoked keys that
// signed nothing (a warning each, D8). The signer chooses how many, and each cost it ~200 bytes of body and the
// service ~100 bytes of answer (4,000 keys: a 380 KB answer, P269). Now the first ten are named as before and
// the rest counted in one warning, as for members no signature covers (P149).
import { buildSignedBundle } from '@proto/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, startApp } from '../../src/test-support.ts';

type Json = Record<string, unknown>;

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0' });
});
afterAll(() => app?.close());

const kid = (i: number) => i.toString(16).padStart(32, '0');

/** A builder bundle whose passport also lists `n` revoked keys that sign nothing. */
function withRevokedKeys(n: number): Json {
  return buildSignedBundle({
    entries: 2,
    hooks: {
      payloads: (p) => {
        const keys = p.agent_passport['keys'] as Json[];
        const model = keys[0] as Json;
        for (let i = 0; i < n; i++) keys.push({ ...model, kid: kid(i), status: 'revoked' });
      },
    },
  }).signed_bundle as Json;
}

const revokedWarnings = (answer: Json) =>
  ((answer['warnings'] as string[] | undefined) ?? []).filter((w) => w.includes('revoked'));

const named = (i: number) => `Key ${kid(i)} (passport) is revoked but signed nothing in this bundle`;

describe('P283: revoked keys that signed nothing', () => {
  it('one: verified, named in one warning exactly as before (the control)', async () => {
    const answer = await postVerify(app.url, { signed_bundle: withRevokedKeys(1) });
    expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(true);
    expect(revokedWarnings(answer.json)).toEqual([named(0)]);
  });

  it('ten: each named, no count', async () => {
    const answer = await postVerify(app.url, { signed_bundle: withRevokedKeys(10) });
    expect(revokedWarnings(answer.json)).toEqual(Array.from({ length: 10 }, (_, i) => named(i)));
  });

  it('2,000: the first ten named, the other 1,990 counted in one warning; the answer stays small', async () => {
    const body = JSON.stringify({ signed_bundle: withRevokedKeys(2_000) });
    const res = await fetch(`${app.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    const answer = JSON.parse(text) as Json;
    expect(answer['verified']).toBe(true);
    expect(revokedWarnings(answer)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => named(i)),
      '… and 1990 more revoked keys signed nothing in this bundle',
    ]);
    expect(text.length).toBeLessThan(5_000);
  });
});
