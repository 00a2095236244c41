// P123: a plain /verify computes no hash of the whole V2 bundle, so the analysis it caches has none. A later
// request with any anchor receipt must still have the receipt's bundle_hash compared with the bundle's own
// (recomputed, never read from the receipt): the cached analysis does not serve it, the worker analyses afresh.
// The receipt comes from the real anchor service on loopback (Bitcoin through the Esplora test server).
import { createHash } from 'node:crypto';
import { type EsploraTestServer, startEsploraServer } from '@proto/anchor/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, sampleBundle } from './test-support.ts';
import {
  type BitcoinReceipt,
  bitcoinReceipt,
  cachedVerifierFor,
  cachePlainVerdict,
  expectRefusedOnMissThenHit,
  startCachedVerifier,
  withReceipt,
} from './testing/bitcoin-receipt.ts';

let esplora: EsploraTestServer;
let anchored: BitcoinReceipt;
let receipt: Record<string, unknown>;
const bundle = sampleBundle({});
const otherHash = `sha256:${createHash('sha256').update('not this bundle').digest('hex')}`;

beforeAll(async () => {
  esplora = await startEsploraServer('regtest');
  anchored = await bitcoinReceipt(esplora, '48'.repeat(32), 'verification-anchor-primary', {
    bundle_hash: bundle.bundleHash,
  });
  receipt = anchored.receipt;
});

afterAll(async () => {
  await anchored?.close();
  await esplora?.close();
});

function expectE202(json: Record<string, unknown>): void {
  expect(json['verified'], JSON.stringify(json)).toBe(false);
  expect(json['checks']).toMatchObject({ anchor: 'fail', classical_sig: 'pass' });
  expect(json['error_details']).toEqual([
    expect.objectContaining({
      code: 'PROTO-E202',
      check: 'anchor',
      message: expect.stringContaining(`not for ${bundle.bundleHash}`),
    }),
  ]);
}

describe('an anchor receipt after a plain verify cached an analysis without the bundle hash (P123)', () => {
  const post = cachedVerifierFor(() => esplora, bundle.signed_bundle);

  it('fails a receipt for another bundle_hash with E202 on a miss and on the hit after it; the honest one passes', async () => {
    expect(receipt).toMatchObject({ status: 'confirmed', bundle_hash: bundle.bundleHash });
    await cachePlainVerdict(post);
    await expectRefusedOnMissThenHit(post, { ...receipt, bundle_hash: otherHash }, expectE202);

    const honest = await post(receipt);
    // Another receipt is other bytes, so another key (P235): analysed afresh, never judged by the wrong one's.
    expect(honest.headers.get('x-verification-cache')).toBe('miss');
    expect(honest.json, JSON.stringify(honest.json)).toMatchObject({
      verified: true,
      checks: { anchor: 'pass' },
    });
    expect(JSON.stringify(honest.json['warnings'] ?? [])).not.toContain('anchor_receipt not checked');
    expect((await post()).json['verified']).toBe(true);
  });

  it('passes the honest receipt when it is the first to follow the plain verify (a miss), then fails the wrong one', async () => {
    const fresh = await startCachedVerifier(esplora);
    try {
      const body = (r?: unknown) => withReceipt(bundle.signed_bundle, r);
      expect((await postVerify(fresh.url, body())).json['verified']).toBe(true);
      const passed = await postVerify(fresh.url, body(receipt));
      expect(passed.headers.get('x-verification-cache')).toBe('miss');
      expect(passed.json, JSON.stringify(passed.json)).toMatchObject({
        verified: true,
        checks: { anchor: 'pass' },
      });
      const wrong = await postVerify(fresh.url, body({ ...receipt, bundle_hash: otherHash }));
      expect(wrong.headers.get('x-verification-cache')).toBe('miss');
      expectE202(wrong.json);
    } finally {
      await fresh.close();
    }
  });
});
