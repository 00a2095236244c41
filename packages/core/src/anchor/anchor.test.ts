// Tests of the pure anchoring pieces: batch trees against the RFC 9162 reference, payload bytes, the event topic,
// the Bitcoin transaction reader and receipt parsing. SPEC.md "Anchoring formats", DECISIONS D4, D19.
import { describe, expect, it } from 'vitest';
import { concatBytes, fromHex, toHex, utf8Encode } from '../encoding/index.ts';
import { rfc9162InclusionProof, rfc9162LeafHash, rfc9162Root } from '../merkle/index.ts';
import { PROFILES } from '../profile.ts';
import {
  ANCHOR_FUNCTION_SELECTOR,
  ANCHORED_EVENT_TOPIC0,
  anchorLeafHash,
  buildAnchorBatch,
  buildAnchorPayload,
  decodeAnchoredLog,
  opReturnData,
  opReturnScript,
  parseAnchorPayload,
  parseAnchorReceipt,
  parseBitcoinTransaction,
  verifyAnchorInclusion,
} from './index.ts';
import { bundleHash, handMadeTransaction, sha } from './test-support.ts';

const digestOf = (h: string) => fromHex(h.slice('sha256:'.length)) as Uint8Array;

describe('anchor batches (RFC 9162, D4/D19)', () => {
  it('leaf = SHA-256(0x00 ‖ 32 raw digest bytes) of the bundle hash', () => {
    const h = bundleHash(1);
    const leaf = anchorLeafHash(h);
    expect(leaf.ok && toHex(leaf.value)).toBe(
      sha(concatBytes(new Uint8Array([0]), digestOf(h))).toString('hex'),
    );
    expect(anchorLeafHash('sha256:ABC').ok).toBe(false);
    expect(anchorLeafHash(`sha3-256:${'a'.repeat(64)}`).ok).toBe(false);
  });

  it('builds the same root and paths as the RFC 9162 reference for every size 1..48', () => {
    for (let n = 1; n <= 48; n++) {
      const hashes = Array.from({ length: n }, (_, i) => bundleHash(i));
      const leaves = hashes.map((h) => rfc9162LeafHash(digestOf(h)));
      const batch = buildAnchorBatch(hashes);
      if (!batch.ok) throw new Error(batch.error.message);
      expect(batch.value.root).toBe(toHex(rfc9162Root(leaves)));
      expect(batch.value.size).toBe(n);
      for (let i = 0; i < n; i++) {
        expect(batch.value.paths[i]).toEqual(rfc9162InclusionProof(leaves, i).map(toHex));
        expect(verifyAnchorInclusion(hashes[i]!, i, n, batch.value.paths[i]!, batch.value.root)).toBe(true);
      }
    }
  });

  it('a one-hash batch commits the leaf hash, not the bare digest', () => {
    const h = bundleHash(7);
    const batch = buildAnchorBatch([h]);
    expect(batch.ok && batch.value.root).toBe(toHex(rfc9162LeafHash(digestOf(h))));
    expect(batch.ok && batch.value.paths).toEqual([[]]);
  });

  it('rejects a path for another hash, index, size, or with a step missing or added', () => {
    const hashes = Array.from({ length: 11 }, (_, i) => bundleHash(i));
    const batch = buildAnchorBatch(hashes);
    if (!batch.ok) throw new Error('batch');
    const { root, paths } = batch.value;
    const path = paths[5]!;
    expect(verifyAnchorInclusion(hashes[5]!, 5, 11, path, root)).toBe(true);
    expect(verifyAnchorInclusion(bundleHash(99), 5, 11, path, root)).toBe(false);
    expect(verifyAnchorInclusion(hashes[5]!, 4, 11, path, root)).toBe(false);
    // Sizes 9..16 give index 5 the same path shape (the size only fixes the shape); 6 does not.
    expect(verifyAnchorInclusion(hashes[5]!, 5, 6, path, root)).toBe(false);
    expect(verifyAnchorInclusion(hashes[5]!, 5, 11, path.slice(1), root)).toBe(false);
    expect(verifyAnchorInclusion(hashes[5]!, 5, 11, [...path, path[0]!], root)).toBe(false);
    expect(verifyAnchorInclusion(hashes[5]!, 5, 11, path, 'f'.repeat(64))).toBe(false);
    expect(verifyAnchorInclusion(hashes[5]!, 5, 11, ['zz'], root)).toBe(false);
  });

  it('refuses an empty batch or a malformed hash', () => {
    expect(buildAnchorBatch([]).ok).toBe(false);
    expect(buildAnchorBatch([bundleHash(1), 'sha256:xyz']).ok).toBe(false);
  });
});

describe('OP_RETURN payloads (D19)', () => {
  const root = 'ab'.repeat(32);

  it('is proto:v2: + 64 hex, 73 ASCII bytes, in one minimal push after OP_RETURN', () => {
    const payload = buildAnchorPayload(root);
    if (!payload.ok) throw new Error('payload');
    expect(payload.value.byteLength).toBe(73);
    expect(new TextDecoder().decode(payload.value)).toBe(`proto:v2:${root}`);
    const script = opReturnScript(payload.value);
    expect(script.ok && toHex(script.value)).toBe(`6a49${toHex(utf8Encode(`proto:v2:${root}`))}`);
    expect(script.ok && opReturnData(script.value)).toEqual(payload.value);
  });

  it('uses the dcp-ai profile prefix when asked (71 bytes) and parses both profiles and bare 32 bytes', () => {
    const dcp = buildAnchorPayload(root, PROFILES['dcp-ai']);
    expect(dcp.ok && dcp.value.byteLength).toBe(71);
    expect(parseAnchorPayload(utf8Encode(`dcp:v2:${root}`))).toEqual({
      ok: true,
      value: { hex: root, profile: 'dcp-ai', version: 'v2' },
    });
    expect(parseAnchorPayload(utf8Encode(`proto:v1:${root}`))).toEqual({
      ok: true,
      value: { hex: root, profile: 'proto', version: 'v1' },
    });
    expect(parseAnchorPayload(fromHex(root) as Uint8Array)).toEqual({ ok: true, value: { hex: root } });
  });

  it('rejects other text, uppercase hex, a short hex and non-OP_RETURN scripts', () => {
    expect(parseAnchorPayload(utf8Encode(`proto:v2:${root.toUpperCase()}`)).ok).toBe(false);
    expect(parseAnchorPayload(utf8Encode(`proto:v3:${root}`)).ok).toBe(false);
    expect(parseAnchorPayload(utf8Encode(`proto:v2:${root.slice(2)}`)).ok).toBe(false);
    expect(buildAnchorPayload('AB'.repeat(32)).ok).toBe(false);
    expect(opReturnData(new Uint8Array([0x76, 0x01, 0x00]))).toBeUndefined();
    expect(opReturnData(new Uint8Array([0x6a, 0x05, 0x01]))).toBeUndefined();
    expect(opReturnData(new Uint8Array([0x6a, 0x4c, 0x02, 0x01, 0x02]))).toEqual(new Uint8Array([1, 2]));
    expect(opReturnScript(new Uint8Array(81)).ok).toBe(false);
  });
});

describe('Anchored event', () => {
  it('topic0 is keccak256("Anchored(bytes32,uint256)") and the selector is anchor(bytes32)', () => {
    // The value PROTOCOL §9.3 records for SPEC.md's event.
    expect(ANCHORED_EVENT_TOPIC0).toBe('0xfde54488b5523b3abf19b99976dd0e2c531fbcd233d0eb682c96c3a18cf6b3c1');
    expect(ANCHOR_FUNCTION_SELECTOR).toMatch(/^0x[0-9a-f]{8}$/);
  });

  it('decodes a JSON-RPC log and refuses other events', () => {
    const log = {
      address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      topics: [ANCHORED_EVENT_TOPIC0, `0x${'CD'.repeat(32)}`],
      data: `0x${(1_700_000_000).toString(16).padStart(64, '0')}`,
      logIndex: '0x3',
    };
    expect(decodeAnchoredLog(log)).toEqual({
      ok: true,
      value: {
        contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        anchored: 'cd'.repeat(32),
        timestamp: 1_700_000_000n,
        logIndex: 3,
      },
    });
    expect(decodeAnchoredLog({ ...log, topics: [`0x${'00'.repeat(32)}`, log.topics[1]] }).ok).toBe(false);
    expect(decodeAnchoredLog({ ...log, topics: [log.topics[0]] }).ok).toBe(false);
    expect(decodeAnchoredLog({ ...log, data: '0x' }).ok).toBe(false);
    expect(decodeAnchoredLog(null).ok).toBe(false);
  });
});

describe('Bitcoin transaction reader', () => {
  const payload = utf8Encode(`proto:v2:${'ef'.repeat(32)}`);

  it('reads outputs and computes the txid of legacy and segwit serializations alike', () => {
    for (const witness of [false, true]) {
      const { raw, txid } = handMadeTransaction(payload, witness);
      const tx = parseBitcoinTransaction(raw);
      if (!tx.ok) throw new Error(tx.error.message);
      expect(tx.value.txid).toBe(txid);
      expect(tx.value.segwit).toBe(witness);
      expect(tx.value.outputs.map((o) => o.value)).toEqual([0n, 50_000n]);
      expect(opReturnData(tx.value.outputs[0]!.script)).toEqual(payload);
    }
  });

  it('rejects truncated input and trailing bytes', () => {
    const { raw } = handMadeTransaction(payload, true);
    expect(parseBitcoinTransaction(raw.slice(0, raw.byteLength - 1)).ok).toBe(false);
    expect(parseBitcoinTransaction(concatBytes(raw, new Uint8Array([0]))).ok).toBe(false);
    expect(parseBitcoinTransaction(new Uint8Array(0)).ok).toBe(false);
  });
});

describe('receipt parsing (SPEC.md shapes + D19 fields)', () => {
  const common = {
    bundle_hash: bundleHash(1),
    status: 'confirmed',
    confirmations: 12,
    anchored_at: '2025-01-01T00:00:00.000Z',
    batch_root: 'aa'.repeat(32),
    batch_size: 2,
    leaf_index: 1,
    merkle_path: ['bb'.repeat(32)],
  };

  it('recognises the three shapes and their batch position', () => {
    const evm = parseAnchorReceipt({
      ...common,
      chain: 'ethereum',
      contract: `0x${'12'.repeat(20)}`,
      tx_id: `0x${'34'.repeat(32)}`,
      block_number: 10,
      event_index: 0,
    });
    expect(evm.ok && evm.value.kind).toBe('evm');
    expect(evm.ok && evm.value.inclusion).toEqual({
      leafIndex: 1,
      batchSize: 2,
      path: common.merkle_path,
      root: common.batch_root,
    });
    const btc = parseAnchorReceipt({
      ...common,
      chain: 'bitcoin',
      network: 'mainnet',
      tx_id: '56'.repeat(32),
      block_height: 800_000,
    });
    expect(btc.ok && btc.value.kind).toBe('bitcoin');
    const log = parseAnchorReceipt({ log_url: 'http://127.0.0.1:3002', log_index: 4, merkle_proof: [] });
    expect(log.ok && log.value.kind).toBe('log');
    expect(log.ok && log.value.inclusion).toBeUndefined();
  });

  it('refuses malformed fields with ARTIFACT_SCHEMA_INVALID', () => {
    const bad = [
      { ...common, chain: 'bitcoin', status: 'done' },
      { ...common, chain: 'bitcoin', tx_id: 'XY' },
      { ...common, chain: 'bitcoin', confirmations: -1 },
      { ...common, chain: 'bitcoin', leaf_index: 2 },
      { ...common, chain: 'bitcoin', batch_size: undefined },
      { ...common, chain: 'bitcoin', merkle_path: ['nothex'] },
      { ...common, chain: 'ethereum', contract: '0x12' },
      { ...common, log_url: 'file:///etc/passwd' },
      { ...common, log_url: 'http://x', log_index: 0 },
      { ...common },
      'receipt',
    ];
    for (const receipt of bad) {
      const parsed = parseAnchorReceipt(receipt);
      expect(parsed.ok, JSON.stringify(receipt)).toBe(false);
      expect(!parsed.ok && parsed.error.code).toBe('ARTIFACT_SCHEMA_INVALID');
    }
  });
});
