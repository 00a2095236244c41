// P231 over HTTP against the real verification service: a signing key's `created_at` is written by whoever signs the
// passport, and the maximum key age (MAX_KEY_AGE_DAYS, D8) is counted from it. A key dated in the future (2999) had a
// negative age, so it never aged out: its holder could sign with it for ever however low the operator set the age.
import { buildSignedBundle, createNativeBackend, generateBundleKeys } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, startApp } from '../../src/test-support.ts';
import {
  bundleListing,
  commissioningCertificate,
  partyOf,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const backend = createNativeBackend();

type Json = Record<string, unknown>;

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0', MAX_KEY_AGE_DAYS: '30' });
});
afterAll(() => app?.close());

/** A bundle whose passport dates every key at `createdAt`, signed over that date. */
function keysCreatedAt(createdAt: string): Json {
  return buildSignedBundle({
    hooks: {
      payloads: (payloads) => {
        for (const key of (payloads.agent_passport as Json)['keys'] as Json[]) key['created_at'] = createdAt;
      },
    },
  }).signed_bundle;
}

describe('P231: a signing key dated ahead of the clock does not escape the maximum key age', () => {
  it('a key created in 2999 signs nothing: E301, not verified', async () => {
    const answer = await postVerify(app.url, { signed_bundle: keysCreatedAt('2999-01-01T00:00:00Z') });
    expect(answer.status).toBe(200);
    expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(false);
    const details = answer.json['error_details'] as { code: string; message: string }[];
    expect(details.map((d) => d.code)).toContain('PROTO-E301');
    expect(details.find((d) => d.code === 'PROTO-E301')?.message).toContain('ahead of');
  });

  it('a key dated a minute ahead (clock skew) or a day ago verifies (the controls)', async () => {
    for (const at of [new Date(Date.now() + 60_000), new Date(Date.now() - 86_400_000)]) {
      const answer = await postVerify(app.url, { signed_bundle: keysCreatedAt(at.toISOString()) });
      expect(answer.json['verified'], `${at.toISOString()}: ${JSON.stringify(answer.json)}`).toBe(true);
    }
  });
});

describe.each(dialectsUnderTest())(
  'P231: the key directory holds no key dated ahead of the clock, on %s',
  (dialect) => {
    let verifier: VerifierWithRecords;
    beforeAll(async () => {
      verifier = await startVerifierWithRecords(dialect, 'v2-key-ahead');
    });
    afterAll(async () => {
      await verifier?.close();
    });

    it('an unused listed key created in 2999 is not bound and signs no record; a key of yesterday beside it is', async () => {
      const ahead = generateBundleKeys(backend, { pq: false });
      const yesterday = generateBundleKeys(backend, { pq: false });
      const now = Date.now();
      const built = bundleListing([
        { keys: ahead, createdAt: '2999-01-01T00:00:00Z' },
        { keys: yesterday, createdAt: new Date(now - 86_400_000).toISOString() },
      ]);
      const answer = await verifier.post('/verify', { signed_bundle: built.signed_bundle });
      expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(true);
      const party = partyOf(built);
      expect(await verifier.keyStatusOnce(yesterday.classical.kid, 200)).toBe(200);
      expect(await verifier.keyStatus(ahead.classical.kid)).toBe(404);
      const byAhead = await verifier.post('/v2/lifecycle/commission', commissioningCertificate(party, ahead));
      expect(byAhead.status, JSON.stringify(byAhead.json)).toBe(403);
      const byYesterday = await verifier.post(
        '/v2/lifecycle/commission',
        commissioningCertificate(party, yesterday),
      );
      expect(byYesterday.status, JSON.stringify(byYesterday.json)).toBe(201);
    });
  },
);
