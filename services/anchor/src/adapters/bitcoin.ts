// Bitcoin adapter: one P2WPKH-funded transaction per batch with one OP_RETURN output `proto:v2:<root hex>` (73 bytes),
// built and signed with @scure/btc-signer, sent and tracked through an Esplora-compatible API. D19, SPEC.md formats.
import { isRfc3339Second, type ProtocolProfile } from '@proto/core';
import { fetchBounded } from '@proto/service-kit';
import type { AnchorBatch, AnchorItem, WriteIntent } from '@proto/store';
import * as btc from '@scure/btc-signer';
import { pubECDSA } from '@scure/btc-signer/utils.js';
import { buildAnchorPayload, opReturnScript } from '../core.ts';
import type { BroadcastResult, ChainAdapter, TrackResult } from './types.ts';
import { TransientError, transientFault } from './types.ts';

export type BitcoinNetworkName = 'mainnet' | 'testnet' | 'regtest';

type BtcNetwork = typeof btc.NETWORK;

export const BITCOIN_NETWORKS: Readonly<Record<BitcoinNetworkName, BtcNetwork>> = {
  mainnet: btc.NETWORK,
  testnet: btc.TEST_NETWORK,
  regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
};

export interface BitcoinAdapterOptions {
  readonly esploraUrl: string;
  /** WIF (of this network) or 64 hex. */
  readonly privateKey: string;
  readonly network: BitcoinNetworkName;
  readonly confirmations: number;
  /** sat/vB. */
  readonly feeRate: number;
  /** A transaction still unconfirmed this long after it was sent is replaced with a higher fee (BIP 125); 0: never. */
  readonly rbfAfterMs?: number;
  /** Highest fee rate a replacement may pay, sat/vB. */
  readonly maxFeeRate?: number;
  readonly profile: ProtocolProfile;
  readonly timeoutMs?: number;
  /** Chain name in requests and receipts (default `bitcoin`). */
  readonly name?: string;
}

interface EsploraUtxo {
  readonly txid: string;
  readonly vout: number;
  readonly value: number;
  readonly status?: { readonly confirmed?: boolean };
}

/** Decodes BTC_PRIVATE_KEY: 64 hex, or WIF whose version byte matches the network. */
export function bitcoinPrivateKey(value: string, network: BitcoinNetworkName): Uint8Array {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return new Uint8Array(Buffer.from(value, 'hex'));
  try {
    return btc.WIF(BITCOIN_NETWORKS[network]).decode(value);
  } catch (error) {
    throw new Error(`BTC_PRIVATE_KEY is not a ${network} WIF or 64 hex (${(error as Error).message})`);
  }
}

/** The P2WPKH address and locking script of a key on a network. */
export function bitcoinWallet(
  privateKey: Uint8Array,
  network: BitcoinNetworkName,
): { address: string; script: Uint8Array } {
  const payment = btc.p2wpkh(pubECDSA(privateKey), BITCOIN_NETWORKS[network]);
  return { address: payment.address as string, script: payment.script };
}

/** BIP 125: any input sequence below 0xfffffffe signals that the transaction may be replaced. */
const RBF_SEQUENCE = 0xfffffffd;

interface SpentCoin {
  readonly txid: string;
  readonly vout: number;
  readonly value: number;
}

/** What a stored Bitcoin write keeps beside its bytes (batch detail). */
interface BitcoinWriteDetail {
  readonly fee_sat: number;
  readonly vsize: number;
  readonly fee_rate: number;
  readonly inputs: readonly SpentCoin[];
  /** Transaction ids this write replaced, oldest first. */
  readonly replaces?: readonly string[];
}

function writeDetail(detail: unknown): BitcoinWriteDetail | undefined {
  const d = detail as Partial<BitcoinWriteDetail> | null;
  if (d === null || typeof d !== 'object' || !Array.isArray(d.inputs) || typeof d.fee_rate !== 'number')
    return undefined;
  return d as BitcoinWriteDetail;
}

/** What is wrong with a mined transaction's status (height, hash, time), or undefined when a receipt can carry it. */
function minedStatusProblem(status: {
  block_height?: unknown;
  block_hash?: unknown;
  block_time?: unknown;
}): string | undefined {
  const height = status.block_height;
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 0)
    return `block_height ${String(height).slice(0, 40)}`;
  const hash = status.block_hash;
  if (hash !== undefined && hash !== null && (typeof hash !== 'string' || !BLOCK_HASH.test(hash)))
    return 'block_hash is not 64 hex digits';
  const time = status.block_time;
  if (time !== undefined && time !== null && (typeof time !== 'number' || !isRfc3339Second(time)))
    return `block_time ${String(time).slice(0, 40)} is no RFC 3339 time`;
  return undefined;
}

const BLOCK_HASH = /^[0-9a-fA-F]{64}$/;

export class BitcoinAdapter implements ChainAdapter {
  readonly name: string;
  readonly kind = 'bitcoin' as const;
  readonly confirmationsRequired: number;
  readonly batches = true;
  readonly #base: string;
  readonly #key: Uint8Array;
  readonly #network: BitcoinNetworkName;
  readonly #wallet: { address: string; script: Uint8Array };
  readonly #feeRate: bigint;
  readonly #profile: ProtocolProfile;
  readonly #timeoutMs: number;
  readonly #rbfAfterMs: number;
  readonly #maxFeeRate: bigint;

  constructor(options: BitcoinAdapterOptions) {
    this.name = options.name ?? 'bitcoin';
    this.confirmationsRequired = options.confirmations;
    this.#base = options.esploraUrl.replace(/\/+$/, '');
    this.#network = options.network;
    this.#key = bitcoinPrivateKey(options.privateKey, options.network);
    this.#wallet = bitcoinWallet(this.#key, options.network);
    this.#feeRate = BigInt(options.feeRate);
    this.#profile = options.profile;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#rbfAfterMs = options.rbfAfterMs ?? 0;
    this.#maxFeeRate = BigInt(Math.max(options.maxFeeRate ?? options.feeRate, options.feeRate));
  }

  get address(): string {
    return this.#wallet.address;
  }

  describe(): Record<string, unknown> {
    return {
      kind: this.kind,
      network: this.#network,
      address: this.#wallet.address,
      confirmations: this.confirmationsRequired,
      fee_rate_sat_vb: Number(this.#feeRate),
      rbf_after_ms: this.#rbfAfterMs,
      max_fee_rate_sat_vb: Number(this.#maxFeeRate),
    };
  }

  /**
   * One exchange with the explorer, its answer read in full within the timeout and up to
   * 16 MiB (fetchBounded); a redirect is not followed (a host or plain http: the operator never chose): P155.
   */
  async #request(
    path: string,
    init: RequestInit = {},
  ): Promise<{ status: number; ok: boolean; text: string }> {
    const res = await fetchBounded(`${this.#base}${path}`, {
      ...init,
      timeoutMs: this.#timeoutMs,
      failWith: transientFault(`esplora ${path}`),
    });
    return { status: res.status, ok: res.ok, text: res.text() };
  }

  async #text(path: string): Promise<string | undefined> {
    const res = await this.#request(path);
    if (res.status === 404) return undefined;
    if (!res.ok) throw new TransientError(`esplora ${path}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
    return res.text;
  }

  /**
   * A page that is not JSON (a proxy's or captive portal's, an answer cut short) is the explorer unavailable, as
   * P161 and P168 read such answers: retried on the next pass, not a broken pass (P177).
   */
  async #json<T>(path: string): Promise<T | undefined> {
    const text = await this.#text(path);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new TransientError(`esplora ${path}: the answer is not JSON (${text.slice(0, 60)})`, {
        cause: error,
      });
    }
  }

  async balance(): Promise<{ currency: string; amount: number }> {
    const utxos = (await this.#json<EsploraUtxo[]>(`/address/${this.#wallet.address}/utxo`)) ?? [];
    return { currency: 'BTC', amount: utxos.reduce((sum, u) => sum + u.value, 0) / 1e8 };
  }

  async ready(): Promise<void> {
    await this.#tipHeight();
  }

  async #tipHeight(): Promise<number> {
    const text = await this.#text('/blocks/tip/height');
    const height = Number(text);
    if (!Number.isSafeInteger(height)) throw new TransientError('esplora /blocks/tip/height: not a number');
    return height;
  }

  async prepare(batch: AnchorBatch): Promise<WriteIntent> {
    const payload = buildAnchorPayload(batch.root, this.#profile);
    if (!payload.ok) throw new Error(payload.error.message);
    const script = opReturnScript(payload.value);
    if (!script.ok) throw new Error(script.error.message);
    const utxos = (await this.#json<EsploraUtxo[]>(`/address/${this.#wallet.address}/utxo`)) ?? [];
    // Confirmed coins first, then our own unconfirmed change (so batches can follow each other within a block).
    const inputs = [...utxos]
      .sort(
        (a, b) =>
          Number(b.status?.confirmed === true) - Number(a.status?.confirmed === true) || b.value - a.value,
      )
      .map((u) => ({ txid: u.txid, vout: u.vout, value: u.value }));
    const signed = this.#sign(inputs, script.value, this.#feeRate, 'default');
    if (signed === undefined) {
      // Not a broken batch: the wallet needs coins. The worker tries again on its next turn.
      throw new TransientError(`wallet ${this.#wallet.address} cannot pay the fee (${utxos.length} UTXOs)`);
    }
    return signed;
  }

  /**
   * Builds and signs the anchor transaction: every input signals replaceability (BIP 125, sequence 0xfffffffd) so a
   * stuck one can be fee-bumped; the detail keeps the coins spent and the rate, which a replacement reuses.
   */
  #sign(
    coins: readonly SpentCoin[],
    opReturn: Uint8Array,
    feeRate: bigint,
    strategy: 'default' | 'all',
    replaces: readonly string[] = [],
  ): WriteIntent | undefined {
    const inputs = coins.map((c) => ({
      txid: Buffer.from(c.txid, 'hex'),
      index: c.vout,
      sequence: RBF_SEQUENCE,
      witnessUtxo: { amount: BigInt(c.value), script: this.#wallet.script },
    }));
    const selected = btc.selectUTXO(inputs, [{ script: opReturn, amount: 0n }], strategy, {
      feePerByte: feeRate,
      changeAddress: this.#wallet.address,
      network: BITCOIN_NETWORKS[this.#network],
      createTx: true,
      bip69: false,
      allowUnknownOutputs: true,
    });
    if (selected?.tx === undefined) return undefined;
    const tx = selected.tx;
    tx.sign(this.#key);
    tx.finalize();
    const spent = Array.from({ length: tx.inputsLength }, (_, i) => {
      const input = tx.getInput(i);
      const txid = Buffer.from(input.txid as Uint8Array).toString('hex');
      return coins.find((c) => c.txid === txid && c.vout === input.index) as SpentCoin;
    });
    const detail: BitcoinWriteDetail = {
      fee_sat: Number(selected.fee ?? 0n),
      vsize: tx.vsize,
      fee_rate: Number(feeRate),
      inputs: spent,
      ...(replaces.length > 0 ? { replaces } : {}),
    };
    return { txId: tx.id, rawTx: tx.hex, detail };
  }

  /**
   * The replacement of a write stuck unconfirmed for BTC_RBF_AFTER_MS: the same coins, twice the fee rate (at most
   * BTC_MAX_FEE_RATE), so BIP 125's higher absolute fee holds. undefined when not due, at the ceiling, or the stored
   * write predates the recorded coins (old rows).
   */
  bump(batch: AnchorBatch, now: Date): WriteIntent | undefined {
    if (this.#rbfAfterMs <= 0 || batch.sent_at === null || batch.tx_id === null) return undefined;
    if (now.getTime() - Date.parse(batch.sent_at) < this.#rbfAfterMs) return undefined;
    const detail = writeDetail(batch.detail);
    if (detail === undefined) return undefined;
    const rate = BigInt(detail.fee_rate);
    const next = rate * 2n < this.#maxFeeRate ? rate * 2n : this.#maxFeeRate;
    if (next <= rate) return undefined;
    const payload = buildAnchorPayload(batch.root, this.#profile);
    if (!payload.ok) return undefined;
    const script = opReturnScript(payload.value);
    if (!script.ok) return undefined;
    return this.#sign(detail.inputs, script.value, next, 'all', [...(detail.replaces ?? []), batch.tx_id]);
  }

  async broadcast(batch: AnchorBatch): Promise<BroadcastResult> {
    if (batch.raw_tx === null || batch.tx_id === null)
      return { ok: false, definitive: true, error: 'no stored transaction' };
    let res: { status: number; ok: boolean; text: string };
    try {
      res = await this.#request('/tx', {
        method: 'POST',
        body: batch.raw_tx,
        headers: { 'content-type': 'text/plain' },
      });
    } catch (error) {
      return { ok: false, definitive: false, error: (error as Error).message };
    }
    const body = res.text;
    if (res.ok) return { ok: true };
    if (res.status >= 500 || res.status === 429) {
      return { ok: false, definitive: false, error: `HTTP ${res.status} ${body.slice(0, 200)}` };
    }
    // Refused: unless it is already known (mined or in the mempool), these bytes will never be accepted.
    const where = await this.track(batch).catch(() => undefined);
    if (where === undefined)
      return { ok: false, definitive: false, error: `HTTP ${res.status} ${body.slice(0, 200)}` };
    if (where.state === 'included' || where.state === 'pending') return { ok: true };
    return { ok: false, definitive: true, error: `HTTP ${res.status} ${body.slice(0, 200)}` };
  }

  async track(batch: AnchorBatch): Promise<TrackResult> {
    if (batch.tx_id === null) return { state: 'unknown' };
    const where = await this.#trackTx(batch.tx_id);
    if (where.state !== 'unknown') return where;
    // A fee bump raced the original into a block: the replaced transaction is the write that counts.
    for (const replaced of writeDetail(batch.detail)?.replaces ?? []) {
      const earlier = await this.#trackTx(replaced);
      if (earlier.state === 'included') return { ...earlier, txId: replaced };
    }
    return where;
  }

  async #trackTx(txId: string): Promise<TrackResult> {
    const status = await this.#json<{
      confirmed?: boolean;
      block_height?: number;
      block_hash?: string;
      block_time?: number;
    }>(`/tx/${txId}/status`);
    if (status === undefined) return { state: 'unknown' };
    if (status.confirmed !== true || typeof status.block_height !== 'number') return { state: 'pending' };
    // P217: what becomes the receipt and the reorganisation watch must be a block and a time a receipt can carry; an
    // answer naming anything else says nothing of the chain (the explorer unreliable, as an answer that is not JSON).
    const problem = minedStatusProblem(status);
    if (problem !== undefined)
      throw new TransientError(`esplora /tx/${txId}/status: malformed answer (${problem})`);
    const tip = await this.#tipHeight();
    return {
      state: 'included',
      blockNumber: status.block_height,
      blockHash: status.block_hash ?? null,
      eventIndex: null,
      anchoredAt:
        typeof status.block_time === 'number' ? new Date(status.block_time * 1000).toISOString() : null,
      confirmations: Math.max(0, tip - status.block_height + 1),
    };
  }

  receipt(_item: AnchorItem, batch: AnchorBatch | undefined) {
    const fields: Record<string, unknown> = { chain: this.name, network: this.#network };
    if (batch?.tx_id) fields['tx_id'] = batch.tx_id;
    if (batch?.block_number !== null && batch?.block_number !== undefined)
      fields['block_height'] = batch.block_number;
    return { fields, batchFields: true };
  }
}
