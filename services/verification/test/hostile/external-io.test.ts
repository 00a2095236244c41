// Issue 12 row i: unverified input must not spend the operator's paid I/O. POST /verify with EVM receipts made by
// the real anchor service on a local chain, read through a counting JSON-RPC proxy (the operator's endpoint).
import { randomBytes } from 'node:crypto';
import { confirmedEvmReceipts, type LocalChain, startLocalChain } from '@proto/anchor/testing';
import { encodeBase64, selectCryptoBackend, signAttestation } from '@proto/core';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { answerJson, forwardTo, type HostileFront, startHostileFront } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let chain: LocalChain;
let target: StoreTarget;
let anchor: FastifyInstance;
/** The operator's RPC endpoint: forwards to the chain and counts every JSON-RPC call. */
let proxy: HostileFront;
let rpcCalls = 0;
/** While true the proxy answers 503 (an RPC outage), without forwarding. */
let rpcDown = false;
/** The operator's revocation list URL: counts fetches and has no list (any fetch is a cost). */
let lists: HostileFront;

let verifier: RunningApp; // analysis cache on (default)
let uncached: RunningApp; // VERIFICATION_CACHE_MAX_ENTRIES=0, revocation and attestation configured too
let tiny: RunningApp; // ANCHOR_VERIFY_CACHE_MAX_ENTRIES=2
// ANCHOR_VERIFY_CACHE_RETRY_TTL_MS=3000: long enough that a loaded machine answers the second request within it.
let shortRetry: RunningApp;

const v1 = sampleBundle({ version: '1.0', entries: 2 });
const v2 = sampleBundle({});
const fresh = sampleBundle({});
const receipts: Record<string, Record<string, unknown>> = {};
const attestationPair = selectCryptoBackend().generateKeyPair('ed25519');

/** The bundle with one character of its outer signature changed: schema-valid, cryptographically false. */
function badSignature(signed: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(signed);
  const flip = (holder: Record<string, unknown>, field: string) => {
    const value = holder[field] as string;
    holder[field] = `${value[0] === 'A' ? 'B' : 'A'}${value.slice(1)}`;
  };
  const signature = copy['signature'] as Record<string, unknown>;
  if (typeof signature['sig_b64'] === 'string') flip(signature, 'sig_b64');
  else {
    const classical = (signature['composite_sig'] as Record<string, Record<string, unknown>>)['classical']!;
    flip(classical, 'sig_b64');
  }
  return copy;
}

/** A transaction id the chain has never seen: a receipt that costs a look-up, then fails. */
function randomTx(): string {
  return `0x${randomBytes(32).toString('hex')}`;
}

beforeAll(async () => {
  [chain, target] = await Promise.all([startLocalChain(), createStoreTarget('sqlite', 'verification-extio')]);
  const samples = { v1, v2, fresh };
  const made = await confirmedEvmReceipts(
    chain,
    await target.open(),
    Object.values(samples).map((sample) => sample.bundleHash),
  );
  anchor = made.anchor;
  Object.keys(samples).forEach((name, i) => {
    receipts[name] = made.receipts[i]!;
  });

  proxy = await startHostileFront(async (request, res) => {
    const parsed = JSON.parse(request.text()) as unknown;
    rpcCalls += Array.isArray(parsed) ? parsed.length : 1;
    if (rpcDown) return res.writeHead(503).end();
    const answer = await forwardTo(chain.url, request);
    return answerJson(res, answer.status, await answer.text());
  });
  lists = await startHostileFront((_request, res) => res.writeHead(404).end());

  const common = {
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_ETH_RPC_URL: JSON.stringify({ ethereum: proxy.url }),
  };
  [verifier, uncached, tiny, shortRetry] = await Promise.all([
    startApp(common),
    startApp({
      ...common,
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
      REVOCATION_SOURCES: JSON.stringify({
        US: { url: `${lists.url}/list.json`, keys: [encodeBase64(attestationPair.publicKey)] },
      }),
      ATTESTATION_TRUSTED_KEYS: JSON.stringify({ US: [encodeBase64(attestationPair.publicKey)] }),
    }),
    startApp({ ...common, ANCHOR_VERIFY_CACHE_MAX_ENTRIES: '2' }),
    startApp({ ...common, ANCHOR_VERIFY_CACHE_RETRY_TTL_MS: '3000' }),
  ]);
});

afterAll(async () => {
  await Promise.all([verifier, uncached, tiny, shortRetry].map((app) => app?.close()));
  await anchor?.close();
  await target?.cleanup();
  await chain?.close();
  await Promise.all([proxy?.close(), lists?.close()]);
});

describe('issue 12 row i: only verified bundles cost the operator I/O', () => {
  it('the genuine V1 bundle and its receipt pass (the receipt is real)', async () => {
    const { json } = await postVerify(uncached.url, {
      signed_bundle: v1.signed_bundle,
      anchor_receipt: receipts['v1'],
    });
    expect(json, JSON.stringify(json)).toMatchObject({
      verified: true,
      version: '1.0',
      checks: { anchor: 'pass' },
    });
  });

  it('a schema-valid V1 bundle with a bad signature plus an EVM receipt: verified false, anchor skipped, zero RPC calls', async () => {
    const forged = badSignature(v1.signed_bundle);
    for (const app of [verifier, uncached]) {
      const before = rpcCalls;
      for (let i = 0; i < 5; i += 1) {
        const { status, json } = await postVerify(app.url, {
          signed_bundle: forged,
          anchor_receipt: receipts['v1'],
        });
        expect(status).toBe(200);
        expect(json, JSON.stringify(json)).toMatchObject({ verified: false, checks: { anchor: 'skipped' } });
        expect(json['error_details']).not.toEqual(
          expect.arrayContaining([expect.objectContaining({ check: 'anchor' })]),
        );
      }
      expect(rpcCalls - before).toBe(0);
    }
  });

  it('a V2 bundle with a bad signature: anchor, revocation and attestation skipped with a warning, no request made', async () => {
    const forged = badSignature(v2.signed_bundle);
    const manifest = (v2.signed_bundle['bundle'] as { manifest: { rpr_hash: string } }).manifest;
    const now = Date.now();
    const attestation = signAttestation(
      {
        issuer: 'did:web:attest.example.us',
        jurisdiction: 'US',
        rpr_hash: manifest.rpr_hash,
        agent_id: v2.agentId!,
        attested_at: new Date(now - 60_000).toISOString(),
        expires_at: new Date(now + 3_600_000).toISOString(),
      },
      attestationPair.secretKey,
    );
    if (!attestation.ok) throw new Error(attestation.error.message);
    const [rpcBefore, listsBefore] = [rpcCalls, lists.hits()];
    const { json } = await postVerify(uncached.url, {
      signed_bundle: forged,
      anchor_receipt: receipts['v2'],
      jurisdiction_attestation: attestation.value,
    });
    expect(json, JSON.stringify(json)).toMatchObject({
      verified: false,
      checks: { classical_sig: 'fail', anchor: 'skipped', revocation: 'skipped', attestation: 'skipped' },
    });
    expect(json['warnings']).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^anchor_receipt not checked: .*not verified/),
        expect.stringMatching(/^jurisdiction_attestation not checked: .*not verified/),
        expect.stringMatching(/^revocation not checked: .*not verified/),
      ]),
    );
    expect([rpcCalls - rpcBefore, lists.hits() - listsBefore]).toEqual([0, 0]);
  });

  it('50 requests with the same good bundle and receipt: RPC calls for the first only (per-receipt cache)', async () => {
    const request = { signed_bundle: v2.signed_bundle, anchor_receipt: receipts['v2'] };
    const before = rpcCalls;
    const first = await postVerify(verifier.url, request);
    expect(first.json, JSON.stringify(first.json)).toMatchObject({
      verified: true,
      checks: { anchor: 'pass' },
    });
    const firstCost = rpcCalls - before;
    expect(firstCost).toBeGreaterThan(0);
    expect(firstCost).toBeLessThanOrEqual(3);
    for (let i = 0; i < 49; i += 1) {
      const { json } = await postVerify(verifier.url, request);
      expect(json).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
    }
    expect(rpcCalls - before).toBe(firstCost);
  });

  it('concurrent requests for a receipt not yet cached share one look-up', async () => {
    const request = { signed_bundle: fresh.signed_bundle, anchor_receipt: receipts['fresh'] };
    const before = rpcCalls;
    const answers = await Promise.all(Array.from({ length: 20 }, () => postVerify(verifier.url, request)));
    for (const { json } of answers)
      expect(json).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
    expect(rpcCalls - before).toBeLessThanOrEqual(3);
  });

  it('a flood of distinct bad receipts for a good bundle: each costs one look-up, a replay costs nothing', async () => {
    const bad = Array.from({ length: 10 }, () => ({ ...receipts['v2'], tx_id: randomTx() }));
    const before = rpcCalls;
    for (const receipt of bad) {
      const { json } = await postVerify(verifier.url, {
        signed_bundle: v2.signed_bundle,
        anchor_receipt: receipt,
      });
      expect(json, JSON.stringify(json)).toMatchObject({ verified: false, checks: { anchor: 'fail' } });
    }
    const perReceipt = (rpcCalls - before) / bad.length;
    expect(perReceipt).toBeGreaterThan(0);
    expect(perReceipt).toBeLessThanOrEqual(3);
    const afterFirstPass = rpcCalls;
    for (const receipt of bad) {
      const { json } = await postVerify(verifier.url, {
        signed_bundle: v2.signed_bundle,
        anchor_receipt: receipt,
      });
      expect(json).toMatchObject({ verified: false, checks: { anchor: 'fail' } });
    }
    expect(rpcCalls).toBe(afterFirstPass);
  });

  it('the per-receipt cache is bounded (ANCHOR_VERIFY_CACHE_MAX_ENTRIES): an evicted receipt costs a look-up again', async () => {
    const bad = Array.from({ length: 3 }, () => ({ ...receipts['v2'], tx_id: randomTx() }));
    const send = (receipt: unknown) =>
      postVerify(tiny.url, { signed_bundle: v2.signed_bundle, anchor_receipt: receipt });
    for (const receipt of bad) await send(receipt);
    const before = rpcCalls;
    await send(bad[2]); // most recent: still cached
    expect(rpcCalls).toBe(before);
    await send(bad[0]); // the oldest of three, in a cache of two: evicted
    expect(rpcCalls).toBeGreaterThan(before);
  });

  it('an RPC outage (skipped, retryable) is cached only briefly: asked again after ANCHOR_VERIFY_CACHE_RETRY_TTL_MS', async () => {
    const request = { signed_bundle: v2.signed_bundle, anchor_receipt: receipts['v2'] };
    rpcDown = true;
    const before = rpcCalls;
    try {
      const down = await postVerify(shortRetry.url, request);
      expect(down.json, JSON.stringify(down.json)).toMatchObject({
        verified: true,
        checks: { anchor: 'skipped' },
      });
      expect(down.json['warnings']).toEqual([expect.stringMatching(/\[PROTO-E701, retryable\]/)]);
      const duringOutage = rpcCalls;
      expect(duringOutage).toBeGreaterThan(before);
      await postVerify(shortRetry.url, request);
      expect(rpcCalls).toBe(duringOutage);
    } finally {
      rpcDown = false;
    }
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    const recovered = await postVerify(shortRetry.url, request);
    expect(recovered.json, JSON.stringify(recovered.json)).toMatchObject({
      verified: true,
      checks: { anchor: 'pass' },
    });
  });
});
