// Bitcoin adapter: one P2WPKH-funded transaction per batch with one OP_RETURN output `proto:v2:<root hex>` (73 bytes),
// built and signed with @scure/btc-signer, sent and tracked through an Esplora-compatible API. D19, SPEC.md formats.
import type { ProtocolProfile } from '@proto/core';
import type { AnchorBatch, AnchorItem, WriteIntent } from '@proto/store';
import * as btc from '@scure/btc-signer';
import { pubECDSA } from '@scure/btc-signer/utils.js';
import { buildAnchorPayload, opReturnScript } from '../core.ts';
import type { BroadcastResult, ChainAdapter, TrackResult } from './types.ts';
import { TransientError } from './types.ts';

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
    };
  }

  async #request(path: string, init: RequestInit = {}): Promise<Response> {
    try {
      return await fetch(`${this.#base}${path}`, { ...init, signal: AbortSignal.timeout(this.#timeoutMs) });
    } catch (error) {
      throw new TransientError(`esplora ${path}: ${(error as Error).message}`, { cause: error });
    }
  }

  async #text(path: string): Promise<string | undefined> {
    const res = await this.#request(path);
    if (res.status === 404) return undefined;
    const body = await res.text();
    if (!res.ok) throw new TransientError(`esplora ${path}: HTTP ${res.status} ${body.slice(0, 200)}`);
    return body;
  }

  async #json<T>(path: string): Promise<T | undefined> {
    const text = await this.#text(path);
    return text === undefined ? undefined : (JSON.parse(text) as T);
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
      .map((u) => ({
        txid: Buffer.from(u.txid, 'hex'),
        index: u.vout,
        witnessUtxo: { amount: BigInt(u.value), script: this.#wallet.script },
      }));
    const network = BITCOIN_NETWORKS[this.#network];
    const selected = btc.selectUTXO(inputs, [{ script: script.value, amount: 0n }], 'default', {
      feePerByte: this.#feeRate,
      changeAddress: this.#wallet.address,
      network,
      createTx: true,
      bip69: false,
      allowUnknownOutputs: true,
    });
    if (selected?.tx === undefined) {
      // Not a broken batch: the wallet needs coins. The worker tries again on its next turn.
      throw new TransientError(`wallet ${this.#wallet.address} cannot pay the fee (${utxos.length} UTXOs)`);
    }
    const tx = selected.tx;
    tx.sign(this.#key);
    tx.finalize();
    return { txId: tx.id, rawTx: tx.hex, detail: { fee_sat: Number(selected.fee ?? 0n), vsize: tx.vsize } };
  }

  async broadcast(batch: AnchorBatch): Promise<BroadcastResult> {
    if (batch.raw_tx === null || batch.tx_id === null)
      return { ok: false, definitive: true, error: 'no stored transaction' };
    let res: Response;
    try {
      res = await this.#request('/tx', {
        method: 'POST',
        body: batch.raw_tx,
        headers: { 'content-type': 'text/plain' },
      });
    } catch (error) {
      return { ok: false, definitive: false, error: (error as Error).message };
    }
    const body = await res.text();
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
    const status = await this.#json<{
      confirmed?: boolean;
      block_height?: number;
      block_hash?: string;
      block_time?: number;
    }>(`/tx/${batch.tx_id}/status`);
    if (status === undefined) return { state: 'unknown' };
    if (status.confirmed !== true || typeof status.block_height !== 'number') return { state: 'pending' };
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
