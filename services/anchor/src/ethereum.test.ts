// End-to-end on a local EVM node (ganache): deploy the contract with the CLI, anchor a batch, mine to the
// confirmations, verify receipts against the chain, and refuse receipts for other hashes. D19, SPEC.md formats.
import { readFileSync } from 'node:fs';
import { runCli } from '@proto/cli';
import { verifyAnchorReceipt } from '@proto/clients';
import { loadAnchorArtifact } from '@proto/clients/contract';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANCHOR_ABI } from './adapters/ethereum.ts';
import {
  artifactText,
  CONTRACT_ARTIFACT_FILE,
  CONTRACTS_DIR,
  compileAnchorContract,
} from './contract/compile.ts';
import { ANCHORED_EVENT_TOPIC0 } from './core.ts';
import { getReceipt, hashOf, postAnchor, testApp } from './testing/app.ts';
import { evmEnv } from './testing/evm-chain.ts';
import { DEPLOYER_KEY, type LocalChain, startLocalChain, TEST_CHAIN_ID } from './testing/ganache.ts';

let chain: LocalChain;
let contract: string;
let target: StoreTarget;
const apps: FastifyInstance[] = [];

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    readStdin: async () => '',
  });
  return { code, out, err };
}

function ethEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...evmEnv(chain.url, contract),
    ETH_CONFIRMATIONS: '12',
    ...extra,
  };
}

async function anchoredEvents(): Promise<{ topics: string[]; transactionHash: string }[]> {
  return (await chain.rpc('eth_getLogs', [
    { address: contract, fromBlock: '0x0', toBlock: 'latest', topics: [ANCHORED_EVENT_TOPIC0] },
  ])) as { topics: string[]; transactionHash: string }[];
}

beforeAll(async () => {
  chain = await startLocalChain();
  const deployed = await cli(['anchor', 'deploy-contract', '--rpc', chain.url, '--key', DEPLOYER_KEY]);
  expect(deployed.err).toBe('');
  expect(deployed.code).toBe(0);
  contract = (JSON.parse(deployed.out) as { contract: string }).contract;
  target = await createStoreTarget('sqlite', 'anchor-evm');
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await target?.cleanup();
  await chain?.close();
});

describe('the ProtoAnchor contract', () => {
  it('the committed artifact is what solc 0.8.30 produces from contracts/ProtoAnchor.sol', () => {
    const fresh = compileAnchorContract();
    expect(artifactText(fresh)).toBe(readFileSync(`${CONTRACTS_DIR}${CONTRACT_ARTIFACT_FILE}`, 'utf8'));
    const compiled = (fresh.abi as { type: string; name: string }[]).map((e) => `${e.type} ${e.name}`).sort();
    expect(compiled).toEqual(ANCHOR_ABI.map((e) => `${e.type} ${e.name}`).sort());
  });

  it('is deployed by `proto anchor deploy-contract` with exactly the committed runtime code', async () => {
    expect(await chain.rpc('eth_getCode', [contract, 'latest'])).toBe(loadAnchorArtifact().deployedBytecode);
    const usage = await cli(['anchor', 'deploy-contract', '--rpc', chain.url, '--key', 'nope']);
    expect(usage.code).toBe(2);
  });
});

describe('anchoring a batch on an EVM chain', () => {
  const hashes = ['evm a', 'evm b', 'evm c'].map(hashOf);
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await testApp(ethEnv({ BATCH_MAX: '3', BATCH_INTERVAL_MS: '3600000' }), await target.open());
    apps.push(app);
  });

  it('answers 202 pending at once, then sends one transaction when the batch is full', async () => {
    const first = await postAnchor(app, hashes[0]!, 'ethereum');
    expect(first.statusCode).toBe(202);
    expect(first.json().anchor_receipt).toMatchObject({
      chain: 'ethereum',
      bundle_hash: hashes[0],
      status: 'pending',
      confirmations: 0,
    });
    for (const h of hashes.slice(1)) expect((await postAnchor(app, h, 'ethereum')).statusCode).toBe(202);
    // The third request filled the batch (BATCH_MAX 3) and started the write; wait for that pass.
    await app.anchorWorker.run('ethereum', true);
    const events = await anchoredEvents();
    expect(events).toHaveLength(1);
    const receipts = await Promise.all(hashes.map((h) => getReceipt(app, h)));
    const root = receipts[0]!['batch_root'] as string;
    expect(events[0]!.topics[1]).toBe(`0x${root}`);
    for (const [i, r] of receipts.entries()) {
      expect(r).toMatchObject({
        chain: 'ethereum',
        chain_id: TEST_CHAIN_ID,
        tx_id: events[0]!.transactionHash,
        status: 'submitted',
        confirmations: 1,
        batch_root: root,
        batch_size: 3,
        leaf_index: i,
      });
      expect(r['contract']).toMatch(/^0x[0-9a-fA-F]{40}$/);
    }
  });

  it("exports the paying account's balance as proto_anchor_wallet_balance, in ETH, as the node reports it", async () => {
    const health = (await app.inject({ method: 'GET', url: '/health' })).json() as {
      chains: { name: string; account: string }[];
    };
    const account = health.chains.find((c) => c.name === 'ethereum')?.account as string;
    const wei = BigInt((await chain.rpc('eth_getBalance', [account, 'latest'])) as string);
    // The batch above paid gas: the balance is below the 1,000 ETH the test chain started with.
    expect(wei).toBeLessThan(10n ** 21n);
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    const line = metrics
      .split('\n')
      .find((l) => l.startsWith('proto_anchor_wallet_balance{chain="ethereum",currency="ETH"}'));
    expect(Number(line?.split(' ').at(-1))).toBeCloseTo(Number(wei) / 1e18, 9);
  });

  it('confirms after ETH_CONFIRMATIONS blocks, and every receipt verifies against the chain', async () => {
    await chain.mine(11);
    await app.anchorWorker.run('ethereum', true);
    for (const h of hashes) {
      const receipt = await getReceipt(app, h);
      expect(receipt).toMatchObject({ status: 'confirmed', confirmations: 12 });
      expect(typeof receipt['anchored_at']).toBe('string');
      expect(receipt['event_index']).toBe(0);
      const check = await verifyAnchorReceipt(receipt, h, { evmRpc: chain.url, minConfirmations: 12 });
      expect(check).toMatchObject({ status: 'pass', kind: 'evm', confirmations: 12 });
    }
  });

  it('a receipt checked for another hash, or edited, fails against the chain', async () => {
    const receipt = await getReceipt(app, hashes[0]!);
    const other = await verifyAnchorReceipt(receipt, hashes[1]!, { evmRpc: chain.url });
    expect(other).toMatchObject({ status: 'fail', code: 'MERKLE_ROOT_MISMATCH' });
    // Relabelled for another hash with the path recomputed as if it were in a one-leaf batch: the chain disagrees.
    const forged = {
      ...receipt,
      bundle_hash: hashOf('never anchored'),
      batch_size: 1,
      leaf_index: 0,
      merkle_path: [],
    };
    const { buildAnchorBatch } = await import('./core.ts');
    const tree = buildAnchorBatch([hashOf('never anchored')]);
    const forgedCheck = await verifyAnchorReceipt(
      { ...forged, batch_root: tree.ok ? tree.value.root : '' },
      hashOf('never anchored'),
      { evmRpc: chain.url },
    );
    expect(forgedCheck).toMatchObject({ status: 'fail', kind: 'evm' });
    expect(forgedCheck.message).toMatch(/emits no Anchored/);
    const wrongBlock = await verifyAnchorReceipt({ ...receipt, block_number: 1 }, hashes[0]!, {
      evmRpc: chain.url,
    });
    expect(wrongBlock.status).toBe('fail');
    const wrongContract = await verifyAnchorReceipt(
      { ...receipt, contract: `0x${'ab'.repeat(20)}` },
      hashes[0]!,
      {
        evmRpc: chain.url,
      },
    );
    expect(wrongContract.status).toBe('fail');
  });

  it('an unreachable RPC gives skipped with a retryable code; no RPC for the chain gives skipped', async () => {
    const receipt = await getReceipt(app, hashes[0]!);
    const down = await verifyAnchorReceipt(receipt, hashes[0]!, {
      evmRpc: 'http://127.0.0.1:9',
      timeoutMs: 2000,
    });
    expect(down).toMatchObject({ status: 'skipped', retryable: true, code: 'CIRCUIT_OPEN' });
    expect(down.warnings.length).toBeGreaterThan(0);
    const none = await verifyAnchorReceipt(receipt, hashes[0]!, {});
    expect(none).toMatchObject({ status: 'skipped', retryable: false });
  });

  it('re-posting an anchored hash returns its receipt and writes nothing', async () => {
    const again = await postAnchor(app, hashes[1]!, 'ethereum');
    expect(again.statusCode).toBe(200);
    expect(again.json().anchor_receipt).toMatchObject({ status: 'confirmed', leaf_index: 1 });
    await app.anchorWorker.run('ethereum', true);
    expect(await anchoredEvents()).toHaveLength(1);
  });

  it('`proto receipt verify` passes the receipt and fails it for another hash', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'receipt-')), 'receipt.json');
    writeFileSync(file, JSON.stringify({ anchor_receipt: await getReceipt(app, hashes[2]!) }));
    const ok = await cli(['receipt', 'verify', file, '--bundle-hash', hashes[2]!, '--rpc', chain.url]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ verified: true, status: 'pass', kind: 'evm' });
    const bad = await cli(['receipt', 'verify', file, '--bundle-hash', hashes[0]!, '--rpc', chain.url]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.out)).toMatchObject({ verified: false, status: 'fail', code: 'PROTO-E202' });
  });
});

describe('individual mode on an EVM chain', () => {
  it('answers 200 with the sent transaction; the receipt is a one-leaf batch', async () => {
    const app = await testApp(
      ethEnv({ ANCHOR_MODE: 'individual', ETH_CONFIRMATIONS: '2', ANCHOR_WAIT_MS: '10000' }),
      await target.open(target.fresh('individual')),
    );
    apps.push(app);
    const h = hashOf('individual');
    const res = await postAnchor(app, h, 'ethereum');
    expect(res.statusCode).toBe(200);
    const receipt = res.json().anchor_receipt as Record<string, unknown>;
    expect(receipt).toMatchObject({ status: 'submitted', batch_size: 1, leaf_index: 0, merkle_path: [] });
    expect(receipt['tx_id']).toMatch(/^0x[0-9a-f]{64}$/);
    await chain.mine(1);
    await app.anchorWorker.run('ethereum', true);
    const confirmed = await getReceipt(app, h);
    expect(confirmed).toMatchObject({ status: 'confirmed', confirmations: 2 });
    expect(await verifyAnchorReceipt(confirmed, h, { evmRpc: chain.url })).toMatchObject({ status: 'pass' });
  });
});
