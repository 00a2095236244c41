// Tests of the pure receipt checks against chain answers: the offline path, an EVM node's receipt, an Esplora
// transaction, a log proof; contradictions fail, missing or early data is skipped. DECISIONS D19, D12.
import { describe, expect, it } from 'vitest';
import { fromHex, toHex, utf8Encode } from '../encoding/index.ts';
import { rfc9162InclusionProof, rfc9162LeafHash, rfc9162Root } from '../merkle/index.ts';
import {
  ANCHORED_EVENT_TOPIC0,
  type AnchorCheck,
  anchorFail,
  buildAnchorBatch,
  checkBitcoinChainData,
  checkEvmChainData,
  checkLogProofData,
  type PreparedReceipt,
  prepareReceiptCheck,
} from './index.ts';
import { bundleHash, handMadeTransaction } from './test-support.ts';

const hashes = [bundleHash(1), bundleHash(2), bundleHash(3)];
const batch = (() => {
  const b = buildAnchorBatch(hashes);
  if (!b.ok) throw new Error('batch');
  return b.value;
})();
const contract = `0x${'5f'.repeat(20)}`;
const txId = `0x${'a1'.repeat(32)}`;
const time = 1_750_000_000;

function evmReceipt(i: number, extra: Record<string, unknown> = {}) {
  return {
    chain: 'ethereum',
    chain_id: 1337,
    contract,
    tx_id: txId,
    block_number: 20,
    event_index: 1,
    bundle_hash: hashes[i],
    status: 'confirmed',
    confirmations: 12,
    anchored_at: new Date(time * 1000).toISOString(),
    batch_root: batch.root,
    batch_size: 3,
    leaf_index: i,
    merkle_path: batch.paths[i],
    ...extra,
  };
}

function nodeReceipt(root: string, extra: Record<string, unknown> = {}) {
  return {
    transactionHash: txId,
    status: '0x1',
    blockNumber: '0x14',
    logs: [
      { address: contract, topics: [`0x${'00'.repeat(32)}`], data: '0x', logIndex: '0x0' },
      {
        address: contract,
        topics: [ANCHORED_EVENT_TOPIC0, `0x${root}`],
        data: `0x${time.toString(16).padStart(64, '0')}`,
        logIndex: '0x1',
      },
    ],
    ...extra,
  };
}

function prepared(receipt: unknown, hash: string): PreparedReceipt {
  const p = prepareReceiptCheck(receipt, hash);
  if (!p.ok) throw new Error(p.error.message);
  return p.value;
}

// One Bitcoin transaction whose OP_RETURN carries the batch root, and a receipt for hashes[1] in it.
const bitcoinTx = handMadeTransaction(utf8Encode(`proto:v2:${batch.root}`), true);
const bitcoinStatus = { confirmed: true, block_height: 100, block_time: time };

function bitcoinReceipt(extra: Record<string, unknown> = {}) {
  return {
    chain: 'bitcoin',
    network: 'regtest',
    tx_id: bitcoinTx.txid,
    block_height: 100,
    bundle_hash: hashes[1],
    status: 'confirmed',
    batch_root: batch.root,
    batch_size: 3,
    leaf_index: 1,
    merkle_path: batch.paths[1],
    ...extra,
  };
}

// A log holding the three hashes, a receipt for the third, and the log's answer proving it.
const logLeaves = hashes.map((h) => rfc9162LeafHash(fromHex(h.slice(7)) as Uint8Array));
const logRoot = toHex(rfc9162Root(logLeaves));
const logProof = rfc9162InclusionProof(logLeaves, 2).map(toHex);
const logReceipt = {
  log_url: 'http://127.0.0.1:3002',
  log_index: 2,
  merkle_proof: logProof,
  bundle_hash: hashes[2],
  status: 'confirmed',
  batch_root: logRoot,
  batch_size: 3,
  leaf_index: 2,
  merkle_path: logProof,
};
const logAnswer = {
  log_index: 2,
  tree_size: 3,
  leaf_hash: toHex(logLeaves[2]!),
  proof: logProof,
  root: logRoot,
};

describe('offline receipt check', () => {
  it('accepts each batch member and refuses a receipt naming another hash', () => {
    for (let i = 0; i < 3; i++) expect(prepareReceiptCheck(evmReceipt(i), hashes[i]!).ok).toBe(true);
    const other = prepareReceiptCheck(evmReceipt(0), hashes[1]!);
    expect(!other.ok && other.error).toMatchObject({ status: 'fail', code: 'MERKLE_ROOT_MISMATCH' });
    // Same receipt relabelled for another hash: the path no longer leads to the root.
    const relabelled = prepareReceiptCheck(evmReceipt(0, { bundle_hash: hashes[1] }), hashes[1]!);
    expect(!relabelled.ok && relabelled.error.message).toMatch(/Merkle path/);
    const failed = prepareReceiptCheck(evmReceipt(0, { status: 'failed' }), hashes[0]!);
    expect(!failed.ok && failed.error.status).toBe('fail');
    const malformed = prepareReceiptCheck({ chain: 'ethereum', contract: 'x' }, hashes[0]!);
    expect(!malformed.ok && malformed.error.code).toBe('ARTIFACT_SCHEMA_INVALID');
  });

  it("P62: a secondary hash with a valid path fails unless it is the bundle's own; absent is silent on request", () => {
    // A batch whose second leaf is a secondary hash: the receipt's path for it is valid whatever it names.
    const told = `sha3-256:${'3a'.repeat(32)}`;
    const own = `sha3-256:${'4b'.repeat(32)}`;
    const dual = buildAnchorBatch([hashes[0]!, told]);
    if (!dual.ok) throw new Error('batch');
    const receipt = {
      ...evmReceipt(0),
      batch_root: dual.value.root,
      batch_size: 2,
      merkle_path: dual.value.paths[0],
      bundle_hash_secondary: told,
      leaf_index_secondary: 1,
      merkle_path_secondary: dual.value.paths[1],
    };
    expect(prepareReceiptCheck(receipt, hashes[0]!).ok).toBe(true);
    expect(prepareReceiptCheck(receipt, hashes[0]!, told).ok).toBe(true);
    const lying = prepareReceiptCheck(receipt, hashes[0]!, own);
    expect(!lying.ok && lying.error).toMatchObject({
      status: 'fail',
      code: 'MERKLE_ROOT_MISMATCH',
      message: `receipt's bundle_hash_secondary is ${told}, not the bundle's ${own}`,
    });
    // A receipt anchoring only bundle_hash: a warning when the caller asked for a secondary, none otherwise.
    const plain = prepareReceiptCheck(evmReceipt(0), hashes[0]!, own);
    expect(plain.ok && plain.value.warnings).toEqual([
      'the receipt anchors only the SHA-256 bundle hash, not its SHA3-256 hash',
    ]);
    const quiet = prepareReceiptCheck(evmReceipt(0), hashes[0]!, own, false);
    expect(quiet.ok && quiet.value.warnings).toEqual([]);
  });

  it('an unbatched SPEC.md receipt commits the digest itself', () => {
    const p = prepared({ chain: 'bitcoin', tx_id: 'ab'.repeat(32), block_height: 5 }, hashes[0]!);
    expect(p.committed).toBe(hashes[0]!.slice(7));
  });
});

describe('EVM chain data', () => {
  it('passes when the event at event_index carries the batch root, with enough confirmations', () => {
    const check = checkEvmChainData(prepared(evmReceipt(2), hashes[2]!), {
      chainId: '0x539',
      txReceipt: nodeReceipt(batch.root),
      tipBlock: '0x1f',
    });
    expect(check).toMatchObject({ status: 'pass', confirmations: 12 });
  });

  it('fails on another root, another contract, a revert, a wrong block or log index, a wrong time', () => {
    const p = prepared(evmReceipt(0), hashes[0]!);
    const run = (txReceipt: unknown) => checkEvmChainData(p, { txReceipt, tipBlock: 40 });
    expect(run(nodeReceipt('ff'.repeat(32))).status).toBe('fail');
    const moved = nodeReceipt(batch.root);
    (moved.logs[1] as { address: string }).address = `0x${'99'.repeat(20)}`;
    expect(run(moved).status).toBe('fail');
    expect(run(nodeReceipt(batch.root, { status: '0x0' })).message).toMatch(/reverted/);
    expect(run(nodeReceipt(batch.root, { blockNumber: '0x15' })).message).toMatch(/block 21/);
    for (const claim of [{ event_index: 0 }, { anchored_at: '2020-01-01T00:00:00Z' }]) {
      const claimed = prepared(evmReceipt(0, claim), hashes[0]!);
      expect(checkEvmChainData(claimed, { txReceipt: nodeReceipt(batch.root), tipBlock: 40 }).status).toBe(
        'fail',
      );
    }
    expect(run(null).message).toMatch(/no transaction/);
  });

  it('skips (retryable) below the confirmations asked, and for a pending receipt without a transaction', () => {
    const p = prepared(evmReceipt(0, { status: 'pending' }), hashes[0]!);
    const early = checkEvmChainData(p, { txReceipt: nodeReceipt(batch.root), tipBlock: 22 }, 6);
    expect(early).toMatchObject({
      status: 'skipped',
      retryable: true,
      code: 'BACKPRESSURE',
      confirmations: 3,
    });
    const unsent = checkEvmChainData(
      prepared(evmReceipt(0, { status: 'pending', tx_id: undefined, block_number: undefined }), hashes[0]!),
      {
        txReceipt: null,
        tipBlock: 1,
      },
    );
    expect(unsent).toMatchObject({ status: 'skipped', retryable: true });
    const otherChain = checkEvmChainData(p, { chainId: 1, txReceipt: nodeReceipt(batch.root), tipBlock: 40 });
    expect(otherChain).toMatchObject({ status: 'skipped', retryable: false });
  });
});

describe('Bitcoin chain data', () => {
  const { raw } = bitcoinTx;
  const receipt = (extra: Record<string, unknown> = {}) =>
    bitcoinReceipt({ anchored_at: new Date(time * 1000).toISOString(), ...extra });
  const status = bitcoinStatus;

  it('passes when the raw transaction hashes to tx_id and its OP_RETURN carries the root', () => {
    const check = checkBitcoinChainData(
      prepared(receipt(), hashes[1]!),
      { rawTx: toHex(raw), status, tipHeight: 105 },
      6,
    );
    expect(check).toMatchObject({ status: 'pass', confirmations: 6 });
  });

  it('fails for a payload for another root, or another block; another transaction than asked is no answer', () => {
    const p = prepared(receipt(), hashes[1]!);
    const other = handMadeTransaction(utf8Encode(`proto:v2:${'00'.repeat(32)}`), false);
    // The explorer was asked for tx_id and gave another transaction: it is at fault, not the receipt (P161).
    expect(checkBitcoinChainData(p, { rawTx: other.raw, status, tipHeight: 105 })).toMatchObject({
      status: 'skipped',
      code: 'CIRCUIT_OPEN',
      retryable: true,
      message: expect.stringMatching(/another transaction/),
    });
    const q = prepared(receipt({ tx_id: other.txid }), hashes[1]!);
    expect(checkBitcoinChainData(q, { rawTx: other.raw, status, tipHeight: 105 }).message).toMatch(
      /no OP_RETURN/,
    );
    expect(
      checkBitcoinChainData(p, { rawTx: raw, status: { ...status, block_height: 99 }, tipHeight: 105 })
        .status,
    ).toBe('fail');
    expect(
      checkBitcoinChainData(p, { rawTx: raw, status: { confirmed: false }, tipHeight: 105 }).status,
    ).toBe('fail');
  });

  it('skips a pending receipt whose transaction is still in the mempool', () => {
    const p = prepared(receipt({ status: 'pending', block_height: undefined }), hashes[1]!);
    expect(
      checkBitcoinChainData(p, { rawTx: raw, status: { confirmed: false }, tipHeight: 105 }),
    ).toMatchObject({
      status: 'skipped',
      retryable: true,
      confirmations: 0,
    });
  });
});

describe('log proof data', () => {
  const leaves = logLeaves;
  const receipt = logReceipt;
  const answer = logAnswer;

  it('passes when the log proves the same root at the same size', () => {
    expect(checkLogProofData(prepared(receipt, hashes[2]!), hashes[2]!, answer).status).toBe('pass');
  });

  it('fails when the log holds another leaf there or another root', () => {
    const p = prepared(receipt, hashes[2]!);
    expect(checkLogProofData(p, hashes[2]!, { ...answer, leaf_hash: toHex(leaves[1]!) }).status).toBe('fail');
    expect(checkLogProofData(p, hashes[2]!, { ...answer, root: 'ee'.repeat(32) }).status).toBe('fail');
  });
});

describe('P161: an answer that is not an answer is the source unavailable (E701, retryable), never a fail', () => {
  const unavailable = (check: AnchorCheck, pattern: RegExp) =>
    expect(check, check.message).toMatchObject({
      status: 'skipped',
      code: 'CIRCUIT_OPEN',
      retryable: true,
      message: expect.stringMatching(pattern),
    });

  it('EVM: a transaction receipt of the wrong shape, a tip or chain id that is not a quantity', () => {
    const p = prepared(evmReceipt(0), hashes[0]!);
    const run = (txReceipt: unknown, tipBlock: unknown = 40) => checkEvmChainData(p, { txReceipt, tipBlock });
    unavailable(run('0xdeadbeef'), /string, not a transaction receipt/);
    unavailable(run([]), /list, not a transaction receipt/);
    unavailable(
      run(nodeReceipt(batch.root, { transactionHash: `0x${'ab'.repeat(32)}` })),
      /another transaction/,
    );
    unavailable(run(nodeReceipt(batch.root, { transactionHash: 7 })), /transactionHash/);
    unavailable(run(nodeReceipt(batch.root, { status: undefined })), /status/);
    unavailable(run(nodeReceipt(batch.root, { status: '0x2' })), /status/);
    unavailable(run(nodeReceipt(batch.root, { blockNumber: undefined })), /block number/);
    unavailable(run(nodeReceipt(batch.root, { blockNumber: 'twenty' })), /block number/);
    unavailable(run(nodeReceipt(batch.root, { logs: 'none' })), /logs/);
    unavailable(run(nodeReceipt(batch.root, { logs: [null] })), /logs/);
    unavailable(run(nodeReceipt(batch.root), 'latest'), /eth_blockNumber/);
    unavailable(run(nodeReceipt(batch.root), null), /eth_blockNumber/);
    const named = prepared(evmReceipt(0, { chain_id: 1337 }), hashes[0]!);
    for (const chainId of [null, {}, 'mainnet']) {
      unavailable(
        checkEvmChainData(named, { chainId, txReceipt: nodeReceipt(batch.root), tipBlock: 40 }),
        /eth_chainId/,
      );
    }
    // The same chain id as a quantity, a number or a bigint is read alike.
    for (const chainId of ['0x539', 1337, 1337n]) {
      expect(
        checkEvmChainData(named, { chainId, txReceipt: nodeReceipt(batch.root), tipBlock: 40 }).status,
      ).toBe('pass');
    }
  });

  it('Bitcoin: no hex, no transaction, a status of the wrong shape', () => {
    const { raw } = bitcoinTx;
    const p = prepared(bitcoinReceipt(), hashes[1]!);
    const status = bitcoinStatus;
    const run = (rawTx: Uint8Array | string, s: unknown) =>
      checkBitcoinChainData(p, { rawTx, status: s, tipHeight: 105 });
    expect(run(raw, status).status).toBe('pass');
    unavailable(run('<html>', status), /no transaction hex/);
    unavailable(run('00', status), /explorer's transaction/);
    unavailable(run(raw, null), /explorer status/);
    unavailable(run(raw, { confirmed: 'yes', block_height: 100 }), /explorer status/);
    unavailable(run(raw, { confirmed: true }), /block_height/);
    unavailable(run(raw, { confirmed: true, block_height: '100' }), /block_height/);
    unavailable(run(raw, { ...status, block_time: 'noon' }), /block_time/);
  });

  it('log: an answer without {tree_size, proof[], root}, or about another entry', () => {
    const proof = logProof;
    const p = prepared(logReceipt, hashes[2]!);
    const answer = logAnswer;
    const run = (a: unknown) => checkLogProofData(p, hashes[2]!, a);
    expect(run(answer).status).toBe('pass');
    for (const bad of [
      null,
      { nothing: true },
      { ...answer, proof: 'none' },
      { ...answer, proof: [1] },
      { ...answer, tree_size: '3' },
      { ...answer, tree_size: 0 },
      { ...answer, tree_size: 2.5 },
      { ...answer, root: 'EE' },
      { ...answer, leaf_hash: 5 },
    ]) {
      unavailable(run(bad), /without \{tree_size, proof\[\], root\}/);
    }
    unavailable(run({ ...answer, log_index: 1 }), /entry 1, not 2/);
    // A well-formed proof that does not lead to the root stays a contradiction.
    expect(run({ ...answer, proof: ['ee'.repeat(32), ...proof.slice(1)] })).toMatchObject({
      status: 'fail',
      code: 'MERKLE_ROOT_MISMATCH',
    });
  });
});

describe('P194: a failing or skipped outcome names its cause by type', () => {
  it('a fail or skipped without a code does not compile; a pass without one does', () => {
    // @ts-expect-error a fail must carry the registry name of its cause (typecheck fails if this compiles)
    const failWithoutCode: AnchorCheck = { status: 'fail', message: 'x', retryable: false, warnings: [] };
    // @ts-expect-error a skipped outcome too
    const skippedWithoutCode: AnchorCheck = {
      status: 'skipped',
      message: 'x',
      retryable: true,
      warnings: [],
    };
    const passed: AnchorCheck = { status: 'pass', message: 'x', retryable: false, warnings: [] };
    expect([failWithoutCode.code, skippedWithoutCode.code, passed.code]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(anchorFail('x').code).toBe('MERKLE_ROOT_MISMATCH');
  });
});
