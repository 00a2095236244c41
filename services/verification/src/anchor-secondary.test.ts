// POST /verify with a receipt that anchors a SHA3-256 secondary hash beside the bundle hash (issue 18, P51, P62),
// made by the real anchor service on loopback (Bitcoin through the Esplora test server). One anchor service is
// honest: it anchors the bundle's own SHA3-256 hash (core's computeBundleHashes). The other anchors a lying
// secondary: well formed, with a valid Merkle path to a root that is really on chain, but not the bundle's.
// The honest receipt passes; the lying one fails with E202 like a receipt for another bundle_hash; the honest
// receipt without its secondary members behaves as a plain SHA-256 receipt (pass, no warning).
import { createHash } from 'node:crypto';
import { type EsploraTestServer, startEsploraServer } from '@proto/anchor/testing';
import { computeBundleHashes } from '@proto/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';
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
const anchored: BitcoinReceipt[] = [];
let verifier: RunningApp;
const bundle = sampleBundle({});
const hashes = computeBundleHashes(bundle.signed_bundle);
if (!hashes.ok) throw new Error(hashes.error.message);
const honestSecondary = hashes.value.bundleHashSecondary;
const lyingSecondary = `sha3-256:${createHash('sha3-256').update('not this bundle').digest('hex')}`;
let honest: Record<string, unknown>;
let lying: Record<string, unknown>;

/** Anchors the bundle with `secondary` through a fresh anchor service paying from `keyHex`; returns the receipt. */
async function anchorWith(keyHex: string, secondary: string): Promise<Record<string, unknown>> {
  const made = await bitcoinReceipt(esplora, keyHex, `verification-anchor-sha3-${keyHex.slice(0, 2)}`, {
    bundle_hash: bundle.bundleHash,
    bundle_hash_secondary: secondary,
  });
  anchored.push(made);
  return made.receipt;
}

beforeAll(async () => {
  esplora = await startEsploraServer('regtest');
  lying = await anchorWith('46'.repeat(32), lyingSecondary);
  honest = await anchorWith('47'.repeat(32), honestSecondary);
  verifier = await startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_ESPLORA_URL: esplora.url,
  });
});

afterAll(async () => {
  await verifier?.close();
  for (const made of anchored) await made.close();
  await esplora?.close();
});

const verify = (anchorReceipt: unknown) =>
  postVerify(verifier.url, { signed_bundle: bundle.signed_bundle, anchor_receipt: anchorReceipt });

function expectE202(json: Record<string, unknown>, message: string): void {
  expect(json['verified']).toBe(false);
  expect(json['checks']).toMatchObject({ anchor: 'fail', classical_sig: 'pass' });
  expect(json['error_details']).toEqual([
    expect.objectContaining({
      code: 'PROTO-E202',
      check: 'anchor',
      message: expect.stringContaining(message),
    }),
  ]);
}

describe('a receipt anchoring the SHA3-256 hash too, through POST /verify', () => {
  it('the builder, core and the service agree on the secondary hash: SHA3-256 of the bytes bundle_hash covers', () => {
    expect(hashes.value.bundleHash).toBe(bundle.bundleHash);
    expect(bundle.bundleHashSecondary).toBe(honestSecondary);
    expect(honestSecondary).toMatch(/^sha3-256:[0-9a-f]{64}$/);
  });

  it('passes the receipt of the honest anchor service, with no warning about the anchor', async () => {
    expect(honest).toMatchObject({
      status: 'confirmed',
      bundle_hash_secondary: honestSecondary,
      leaf_index_secondary: 1,
      batch_size: 2,
    });
    const { status, json } = await verify(honest);
    expect(status).toBe(200);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
    expect(JSON.stringify(json['warnings'] ?? [])).not.toContain('anchor_receipt');
  });

  it('fails the receipt of an anchor service that anchored a lying secondary (valid path, on chain): E202', async () => {
    expect(lying).toMatchObject({
      status: 'confirmed',
      bundle_hash: bundle.bundleHash,
      bundle_hash_secondary: lyingSecondary,
      leaf_index_secondary: 1,
    });
    const { status, json } = await verify(lying);
    expect(status).toBe(200);
    expectE202(json, `not the bundle's ${honestSecondary}`);
  });

  it('fails an honest receipt whose secondary hash was replaced, or whose secondary path was changed: E202', async () => {
    const path = [...(honest['merkle_path_secondary'] as string[])];
    path[0] = 'cd'.repeat(32);
    expectE202(
      (await verify({ ...honest, bundle_hash_secondary: lyingSecondary })).json,
      'bundle_hash_secondary',
    );
    expectE202((await verify({ ...honest, merkle_path_secondary: path })).json, 'bundle_hash_secondary');
  });

  it('passes a receipt without a secondary hash as before (the same receipt without its secondary members)', async () => {
    const {
      bundle_hash_secondary: _hash,
      leaf_index_secondary: _index,
      merkle_path_secondary: _path,
      ...primaryOnly
    } = honest;
    const { json } = await verify(primaryOnly);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
    expect(JSON.stringify(json['warnings'] ?? [])).not.toContain('anchor_receipt');
  });
});

// P74: a plain /verify computes no SHA3-256 hash of the bundle, so the analysis it caches has none. A later
// request whose receipt names a bundle_hash_secondary must still have it compared with the bundle's own.
describe('a receipt naming a secondary hash after a plain verify cached the analysis (P74)', () => {
  const post = cachedVerifierFor(() => esplora, bundle.signed_bundle);

  it('refuses the lying secondary with E202 and passes the honest one, each on its first and a repeated request', async () => {
    await cachePlainVerdict(post);
    // The cached analysis has no SHA3-256 hash: the request is analysed afresh (a miss), not checked without it.
    await expectRefusedOnMissThenHit(post, lying, (json) =>
      expectE202(json, `not the bundle's ${honestSecondary}`),
    );

    const passed = await post(honest);
    // Another receipt is other bytes, so another key (P235): analysed afresh.
    expect(passed.headers.get('x-verification-cache')).toBe('miss');
    expect(passed.json, JSON.stringify(passed.json)).toMatchObject({
      verified: true,
      checks: { anchor: 'pass' },
    });
    expect((await post()).json['verified']).toBe(true);
  });

  it('passes the honest receipt when it is the first to follow the plain verify, then refuses the lying one', async () => {
    // An app of its own, so the honest receipt meets the plain analysis (above, the lying one came first).
    const fresh = await startCachedVerifier(esplora);
    try {
      const body = (receipt?: unknown) => withReceipt(bundle.signed_bundle, receipt);
      expect((await postVerify(fresh.url, body())).json['verified']).toBe(true);
      const passed = await postVerify(fresh.url, body(honest));
      expect(passed.json, JSON.stringify(passed.json)).toMatchObject({
        verified: true,
        checks: { anchor: 'pass' },
      });
      expect(passed.headers.get('x-verification-cache')).toBe('miss');
      const lied = await postVerify(fresh.url, body(lying));
      expect(lied.headers.get('x-verification-cache')).toBe('miss');
      expectE202(lied.json, `not the bundle's ${honestSecondary}`);
    } finally {
      await fresh.close();
    }
  });
});
