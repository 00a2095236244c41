// Crash safety: the service (a child process) is SIGKILLed right after broadcasting, before it records that; after a
// restart no hash is anchored twice and every receipt is found. EVM (ganache) and Bitcoin (Esplora stand-in). D19.
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyAnchorReceipt } from '@proto/clients';
import { openStore } from '@proto/store';
import { waitFor } from '@proto/testing';
import * as btc from '@scure/btc-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitcoinPrivateKey, bitcoinWallet } from './adapters/bitcoin.ts';
import { ANCHORED_EVENT_TOPIC0 } from './core.ts';
import { hashOf, OPERATOR } from './testing/app.ts';
import { type ServiceChild, startServiceChild } from './testing/child.ts';
import { type EsploraTestServer, startEsploraServer } from './testing/esplora-server.ts';
import { deployContract, evmEnv } from './testing/evm-chain.ts';
import { type LocalChain, startLocalChain } from './testing/ganache.ts';

const children: ServiceChild[] = [];
const dataDirs: string[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function post(url: string, bundleHash: string, chain: string): Promise<number> {
  const res = await fetch(`${url}/anchor`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
    body: JSON.stringify({ bundle_hash: bundleHash, chain }),
  });
  return res.status;
}

async function receipt(url: string, bundleHash: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/anchor/${bundleHash}`);
  if (res.status !== 200) throw new Error(`GET ${res.status}`);
  return ((await res.json()) as { anchor_receipt: Record<string, unknown> }).anchor_receipt;
}

type Receipt = Record<string, unknown>;

const confirmedReceipt = (r: Receipt) => r['status'] === 'confirmed';

/**
 * Every hash's receipt, once each answers 200 and passes `test`: the restarted worker gets there on its own
 * time. `what` names the state in the timeout's message.
 */
async function receiptsOnce(
  url: string,
  bundleHashes: readonly string[],
  what: string,
  test: (r: Receipt) => boolean,
): Promise<Receipt[]> {
  const answer = async () => {
    // A receipt that does not answer 200 yet counts as not there yet.
    const all = await Promise.all(bundleHashes.map((h) => receipt(url, h))).catch(() => undefined);
    return all?.every(test) ? all : undefined;
  };
  return await waitFor(answer, 20_000, what, 100);
}

/** Runs the service until its crash hook kills it after the first broadcast; returns what it left behind. */
async function crashAfterSend(env: Record<string, string>, chain: string, hashes: readonly string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'anchor-crash-'));
  dataDirs.push(dataDir);
  const base = {
    ...env,
    DATA_DIR: dataDir,
    OPERATOR_TOKEN: OPERATOR,
    ANCHOR_POLL_INTERVAL_MS: '100',
    BATCH_INTERVAL_MS: '1000',
  };
  const first = await startServiceChild({ ...base, ANCHOR_TEST_CRASH_AFTER_SEND: 'true' });
  children.push(first);
  for (const h of hashes) expect(await post(first.url, h, chain)).toBe(202);
  const exit = await Promise.race([first.exited, new Promise((r) => setTimeout(() => r('alive'), 20_000))]);
  expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
  expect(first.output()).toMatch(/test crash after sending batch/);
  const store = await openStore({ dataDir, name: 'anchor' });
  const sending = await store.anchor.batches(chain, ['sending']);
  await store.close();
  return { base, sending };
}

describe('crash between broadcast and record', () => {
  let chain: LocalChain;
  let esplora: EsploraTestServer;

  beforeAll(async () => {
    [chain, esplora] = await Promise.all([startLocalChain(), startEsploraServer('regtest')]);
  });
  afterAll(async () => {
    await Promise.all([chain?.close(), esplora?.close()]);
  });

  it('EVM: after restart the stored transaction is found on chain, not sent again, and confirmed', async () => {
    const contract = await deployContract(chain);
    const hashes = ['crash evm 1', 'crash evm 2', 'crash evm 3'].map(hashOf);
    const env = {
      ...evmEnv(chain.url, contract),
      ETH_CONFIRMATIONS: '3',
    };
    const { base, sending } = await crashAfterSend(env, 'ethereum', hashes);
    // The intent (signed raw transaction and its hash) was stored before the broadcast; the record of it was not.
    expect(sending).toHaveLength(1);
    expect(sending[0]!.raw_tx).toMatch(/^0x/);
    const events = async () =>
      (await chain.rpc('eth_getLogs', [
        { address: contract, fromBlock: '0x0', toBlock: 'latest', topics: [ANCHORED_EVENT_TOPIC0] },
      ])) as {
        transactionHash: string;
        topics: string[];
      }[];
    expect((await events()).map((e) => e.transactionHash)).toEqual([sending[0]!.tx_id]);

    const second = await startServiceChild(base);
    children.push(second);
    const sent = await receiptsOnce(
      second.url,
      hashes,
      'every hash sent and in a block',
      (r) => r['tx_id'] !== undefined && (r['confirmations'] as number) >= 1,
    );
    await chain.mine(3);
    const confirmed = await receiptsOnce(second.url, hashes, 'every hash confirmed', confirmedReceipt);
    // Every hash sits in exactly one batch, each batch root went on chain exactly once.
    const roots = new Set(confirmed.map((r) => r['batch_root'] as string));
    const onChain = await events();
    expect(onChain).toHaveLength(roots.size);
    expect(new Set(onChain.map((e) => e.topics[1]!.slice(2)))).toEqual(roots);
    expect(sent.some((r) => r['tx_id'] === sending[0]!.tx_id)).toBe(true);
    const anchorAccount = (await chain.rpc('eth_accounts')) as string[];
    const nonce = Number(await chain.rpc('eth_getTransactionCount', [anchorAccount[1], 'latest']));
    expect(nonce).toBe(roots.size);
    for (const [i, r] of confirmed.entries()) {
      expect(
        await verifyAnchorReceipt(r, hashes[i]!, { evmRpc: chain.url, minConfirmations: 3 }),
      ).toMatchObject({ status: 'pass' });
    }
    await second.stop();
  });

  it('Bitcoin: after restart the stored transaction is found, not rebuilt, and confirmed', async () => {
    const key = '55'.repeat(32);
    const wallet = bitcoinWallet(bitcoinPrivateKey(key, 'regtest'), 'regtest');
    esplora.fund(wallet.address, 50_000);
    const hashes = ['crash btc 1', 'crash btc 2'].map(hashOf);
    const env = {
      BTC_ESPLORA_URL: esplora.url,
      BTC_PRIVATE_KEY: btc.WIF(btc.TEST_NETWORK).encode(Buffer.from(key, 'hex')),
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '2',
    };
    const { base, sending } = await crashAfterSend(env, 'bitcoin', hashes);
    expect(sending).toHaveLength(1);
    expect([...esplora.transactions.keys()]).toEqual([sending[0]!.tx_id]);

    const second = await startServiceChild(base);
    children.push(second);
    await receiptsOnce(second.url, hashes, 'every hash sent', (r) => r['tx_id'] !== undefined);
    esplora.mine(2);
    const confirmed = await receiptsOnce(second.url, hashes, 'every hash confirmed', confirmedReceipt);
    const txids = new Set(confirmed.map((r) => r['tx_id'] as string));
    expect(txids.size).toBe(new Set(confirmed.map((r) => r['batch_root'])).size);
    // Only the transactions the receipts name exist: nothing was built twice for the same batch.
    expect(new Set(esplora.transactions.keys())).toEqual(txids);
    expect(txids.has(sending[0]!.tx_id as string)).toBe(true);
    for (const [i, r] of confirmed.entries()) {
      expect(
        await verifyAnchorReceipt(r, hashes[i]!, { esplora: esplora.url, minConfirmations: 2 }),
      ).toMatchObject({ status: 'pass' });
    }
    await second.stop();
  });
});
