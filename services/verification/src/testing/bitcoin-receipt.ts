// Test support for /verify's anchor checks: a confirmed Bitcoin receipt made by the real anchor service on
// loopback (regtest, through the Esplora test server), for the tests that compare a receipt with the bundle
// (anchor-secondary.test.ts, anchor-primary-on-demand.test.ts; P74, P123).
import {
  bitcoinPrivateKey,
  bitcoinWallet,
  type EsploraTestServer,
  OPERATOR,
  testApp,
} from '@proto/anchor/testing';
import { createStoreTarget } from '@proto/store/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { postVerify, type RunningApp, startApp } from '../test-support.ts';

export interface BitcoinReceipt {
  readonly receipt: Record<string, unknown>;
  /** Closes the anchor service and removes its store. */
  close(): Promise<void>;
}

/**
 * Funds the wallet of `keyHex`, anchors `payload` (bundle_hash, and bundle_hash_secondary when given) through a
 * fresh anchor service on a store named `storeName`, mines the block and returns the confirmed receipt.
 */
export async function bitcoinReceipt(
  esplora: EsploraTestServer,
  keyHex: string,
  storeName: string,
  payload: { bundle_hash: string; bundle_hash_secondary?: string },
): Promise<BitcoinReceipt> {
  esplora.fund(bitcoinWallet(bitcoinPrivateKey(keyHex, 'regtest'), 'regtest').address, 100_000);
  const target = await createStoreTarget('sqlite', storeName);
  const anchor = await testApp(
    {
      BTC_ESPLORA_URL: esplora.url,
      BTC_PRIVATE_KEY: keyHex,
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '1',
      BATCH_INTERVAL_MS: '0',
    },
    await target.open(),
  );
  const close = async () => {
    await anchor.close();
    await target.cleanup();
  };
  const posted = await anchor.inject({
    method: 'POST',
    url: '/anchor',
    headers: { authorization: `Bearer ${OPERATOR}` },
    payload: { ...payload, chain: 'bitcoin' },
  });
  if (posted.statusCode !== 202) {
    await close();
    throw new Error(`POST /anchor answered ${posted.statusCode}: ${posted.body}`);
  }
  await anchor.anchorWorker.run('bitcoin', true);
  esplora.mine(1);
  await anchor.anchorWorker.run('bitcoin', true);
  const res = await anchor.inject({ method: 'GET', url: `/anchor/${payload.bundle_hash}` });
  return { receipt: (res.json() as { anchor_receipt: Record<string, unknown> }).anchor_receipt, close };
}

/** A /verify body: the signed bundle, with `anchorReceipt` when one is given. */
export function withReceipt(signedBundle: unknown, anchorReceipt?: unknown): Record<string, unknown> {
  return anchorReceipt === undefined
    ? { signed_bundle: signedBundle }
    : { signed_bundle: signedBundle, anchor_receipt: anchorReceipt };
}

/** A verification app with its analysis cache on (100 entries) that checks Bitcoin receipts through `esplora`. */
export function startCachedVerifier(esplora: EsploraTestServer): Promise<RunningApp> {
  return startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    VERIFICATION_CACHE_MAX_ENTRIES: '100',
    ANCHOR_VERIFY_ESPLORA_URL: esplora.url,
  });
}

/** POST /verify of one signed bundle, with a receipt when one is given. */
export type ReceiptPost = (
  anchorReceipt?: unknown,
) => Promise<{ readonly headers: Headers; readonly json: Record<string, unknown> }>;

/**
 * Registers, in the calling describe block, a verifier with its cache on (started before its tests, closed after
 * them) and returns the POST of `signedBundle` to it. `esplora` is read when the verifier starts.
 */
export function cachedVerifierFor(esplora: () => EsploraTestServer, signedBundle: unknown): ReceiptPost {
  let cached: RunningApp | undefined;
  beforeAll(async () => {
    cached = await startCachedVerifier(esplora());
  });
  afterAll(async () => {
    await cached?.close();
  });
  return (anchorReceipt) => {
    if (cached === undefined) throw new Error('the cached verifier has not started');
    return postVerify(cached.url, withReceipt(signedBundle, anchorReceipt));
  };
}

/** The bundle verified without a receipt, then cached: a miss, then a hit on the same bytes. */
export async function cachePlainVerdict(post: ReceiptPost): Promise<void> {
  const plain = await post();
  expect(plain.json['verified']).toBe(true);
  expect(plain.headers.get('x-verification-cache')).toBe('miss');
  expect((await post()).headers.get('x-verification-cache')).toBe('hit');
}

/**
 * After `cachePlainVerdict`: `receipt` is refused (`expectRefused`) on its first request, a miss (other bytes than
 * the plain request's, so another key: P235), and again on the same bytes, now a hit on the analysis made for it.
 */
export async function expectRefusedOnMissThenHit(
  post: ReceiptPost,
  receipt: unknown,
  expectRefused: (json: Record<string, unknown>) => void,
): Promise<void> {
  const first = await post(receipt);
  expect(first.headers.get('x-verification-cache')).toBe('miss');
  expectRefused(first.json);
  const again = await post(receipt);
  expect(again.headers.get('x-verification-cache')).toBe('hit');
  expectRefused(again.json);
}
