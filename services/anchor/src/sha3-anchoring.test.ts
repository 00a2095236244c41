// SHA3 anchoring (SPEC.md: V2 may anchor bundle_hash and bundle_hash_secondary): POST /anchor takes both, the
// secondary is a leaf of the same batch whose root goes on chain (Bitcoin through the Esplora test server), receipts
// carry both, and the receipt verifier and the CLI check both. Issue 18 item 4; P51.
import { createHash } from 'node:crypto';
import { runCli } from '@proto/cli';
import { verifyAnchorReceipt } from '@proto/clients';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitcoinPrivateKey, bitcoinWallet } from './adapters/bitcoin.ts';
import { getReceipt, hashOf, OPERATOR, testApp } from './testing/app.ts';
import { type EsploraTestServer, startEsploraServer } from './testing/esplora-server.ts';

const KEY_HEX = '77'.repeat(32);
let esplora: EsploraTestServer;
let target: StoreTarget;
let app: FastifyInstance;

const sha3Of = (text: string) => `sha3-256:${createHash('sha3-256').update(text).digest('hex')}`;

function post(payload: Record<string, unknown>) {
  return app.inject({
    method: 'POST',
    url: '/anchor',
    headers: { authorization: `Bearer ${OPERATOR}` },
    payload: { chain: 'bitcoin', ...payload },
  });
}

async function cliVerify(receipt: unknown, args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runCli(['receipt', 'verify', '-', '--esplora', esplora.url, ...args], {
    stdout: (t) => {
      out += t;
    },
    stderr: () => undefined,
    readStdin: async () => JSON.stringify(receipt),
  });
  return { code, out };
}

beforeAll(async () => {
  esplora = await startEsploraServer('regtest');
  esplora.fund(bitcoinWallet(bitcoinPrivateKey(KEY_HEX, 'regtest'), 'regtest').address, 500_000);
  target = await createStoreTarget('sqlite', 'anchor-sha3');
  app = await testApp(
    {
      BTC_ESPLORA_URL: esplora.url,
      BTC_PRIVATE_KEY: KEY_HEX,
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '2',
      // Nothing closes until the test runs the worker: then every waiting request goes into one batch.
      BATCH_INTERVAL_MS: '0',
      BATCH_MAX: '10',
    },
    await target.open(),
  );
});

afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await esplora?.close();
});

describe('anchoring the SHA-256 and the SHA3-256 bundle hash together', () => {
  const dual = { bundle_hash: hashOf('v2 bundle'), bundle_hash_secondary: sha3Of('v2 bundle') };
  const single = hashOf('v1 bundle');
  const late = { bundle_hash: hashOf('late secondary'), bundle_hash_secondary: sha3Of('late secondary') };

  it('accepts both hashes, and a secondary added while the request is still queued', async () => {
    const res = await post(dual);
    expect(res.statusCode).toBe(202);
    expect(res.json().anchor_receipt).toMatchObject({ ...dual, status: 'pending' });
    expect((await post({ bundle_hash: single })).statusCode).toBe(202);
    expect((await post({ bundle_hash: late.bundle_hash })).statusCode).toBe(202);
    const joined = await post(late);
    expect(joined.statusCode).toBe(202);
    expect(joined.json().anchor_receipt).toMatchObject(late);
  });

  it('refuses a malformed secondary hash and another secondary for a hash already requested', async () => {
    for (const bad of [`sha256:${'a'.repeat(64)}`, `sha3-256:${'A'.repeat(64)}`, 'sha3-256:abc']) {
      const res = await post({ bundle_hash: hashOf('bad'), bundle_hash_secondary: bad });
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).not.toMatch(/at .*\.ts/);
    }
    const other = await post({ ...dual, bundle_hash_secondary: sha3Of('another bundle') });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('CONFLICT');
  });

  it('writes one root for both leaves of each request; receipts carry both paths and verify', async () => {
    await app.anchorWorker.run('bitcoin', true);
    expect(esplora.transactions.size).toBe(1);
    esplora.mine(2);
    await app.anchorWorker.run('bitcoin', true);
    const receipt = await getReceipt(app, dual.bundle_hash);
    expect(receipt).toMatchObject({
      ...dual,
      status: 'confirmed',
      batch_size: 5,
      leaf_index: 0,
      leaf_index_secondary: 1,
    });
    expect(receipt['merkle_path_secondary']).toHaveLength(3);
    expect(await getReceipt(app, single)).toMatchObject({ leaf_index: 2, batch_size: 5 });
    expect(await getReceipt(app, single)).not.toHaveProperty('bundle_hash_secondary');
    expect(await getReceipt(app, late.bundle_hash)).toMatchObject({ ...late, leaf_index: 3 });

    const sources = { esplora: esplora.url, minConfirmations: 2 };
    expect(
      await verifyAnchorReceipt(receipt, dual.bundle_hash, {
        ...sources,
        secondaryHash: dual.bundle_hash_secondary,
      }),
    ).toMatchObject({ status: 'pass', kind: 'bitcoin', warnings: [] });
    expect(
      await verifyAnchorReceipt(await getReceipt(app, single), single, {
        ...sources,
        secondaryHash: sha3Of('v1 bundle'),
      }),
    ).toMatchObject({
      status: 'pass',
      warnings: ['the receipt anchors only the SHA-256 bundle hash, not its SHA3-256 hash'],
    });
  });

  it('a receipt whose secondary hash is wrong fails, whether or not the verifier knows the right one', async () => {
    const receipt = await getReceipt(app, dual.bundle_hash);
    const sources = { esplora: esplora.url };
    // The verifier knows the bundle's SHA3-256 hash and the receipt names another.
    expect(
      await verifyAnchorReceipt(receipt, dual.bundle_hash, {
        ...sources,
        secondaryHash: sha3Of('some other bundle'),
      }),
    ).toMatchObject({ status: 'fail', code: 'MERKLE_ROOT_MISMATCH' });
    // The receipt was relabelled with another secondary hash: its path no longer leads to the root.
    const relabelled = { ...receipt, bundle_hash_secondary: sha3Of('forged') };
    expect(await verifyAnchorReceipt(relabelled, dual.bundle_hash, sources)).toMatchObject({
      status: 'fail',
      message: 'the Merkle path does not lead from bundle_hash_secondary to batch_root',
    });
    // Its secondary path was tampered with.
    const path = [...(receipt['merkle_path_secondary'] as string[])];
    path[0] = 'ab'.repeat(32);
    expect(
      await verifyAnchorReceipt({ ...receipt, merkle_path_secondary: path }, dual.bundle_hash, sources),
    ).toMatchObject({ status: 'fail' });
    // The secondary claimed at the primary's own leaf.
    expect(
      await verifyAnchorReceipt({ ...receipt, leaf_index_secondary: 0 }, dual.bundle_hash, sources),
    ).toMatchObject({ status: 'fail', code: 'ARTIFACT_SCHEMA_INVALID' });
  });

  it('the CLI checks the secondary hash with --secondary-hash', async () => {
    const receipt = await getReceipt(app, dual.bundle_hash);
    const good = await cliVerify(receipt, [
      '--bundle-hash',
      dual.bundle_hash,
      '--secondary-hash',
      dual.bundle_hash_secondary,
    ]);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.out)).toMatchObject({ verified: true });
    const wrong = await cliVerify(receipt, [
      '--bundle-hash',
      dual.bundle_hash,
      '--secondary-hash',
      sha3Of('some other bundle'),
    ]);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.out)).toMatchObject({ verified: false, status: 'fail' });
    const tampered = await cliVerify({ ...receipt, bundle_hash_secondary: sha3Of('forged') }, [
      '--bundle-hash',
      dual.bundle_hash,
    ]);
    expect(tampered.code).toBe(1);
  });
});
