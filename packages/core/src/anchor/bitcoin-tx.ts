// Minimal Bitcoin transaction reader: outputs and the txid (double SHA-256 of the non-witness form, byte-reversed).
// DECISIONS D19: a verifier reads the OP_RETURN payload from the raw transaction and checks the txid it was asked about.
import { createHash } from 'node:crypto';
import { concatBytes, toHex } from '../encoding/index.ts';
import { coreError, err, ok, type Result } from '../result.ts';

export interface BitcoinTxOutput {
  /** Amount in satoshis. */
  readonly value: bigint;
  readonly script: Uint8Array;
}

export interface ParsedBitcoinTx {
  /** Display txid: lowercase hex of the byte-reversed double SHA-256 of the non-witness serialization. */
  readonly txid: string;
  readonly version: number;
  readonly inputCount: number;
  readonly outputs: readonly BitcoinTxOutput[];
  readonly segwit: boolean;
}

class Reader {
  readonly #bytes: Uint8Array;
  #at = 0;
  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }
  get offset(): number {
    return this.#at;
  }
  get done(): boolean {
    return this.#at === this.#bytes.byteLength;
  }
  peek(n: number): number | undefined {
    return this.#bytes[this.#at + n];
  }
  take(n: number): Uint8Array {
    if (n < 0 || this.#at + n > this.#bytes.byteLength) throw new RangeError('truncated transaction');
    const out = this.#bytes.subarray(this.#at, this.#at + n);
    this.#at += n;
    return out;
  }
  uint32(): number {
    const b = this.take(4);
    return (
      ((b[0] as number) | ((b[1] as number) << 8) | ((b[2] as number) << 16)) + (b[3] as number) * 2 ** 24
    );
  }
  uint64(): bigint {
    const b = this.take(8);
    let v = 0n;
    for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(b[i] as number);
    return v;
  }
  /** CompactSize; refuses values beyond what a transaction could hold. */
  varint(): number {
    const first = this.take(1)[0] as number;
    if (first < 0xfd) return first;
    if (first === 0xfd) {
      const b = this.take(2);
      return (b[0] as number) | ((b[1] as number) << 8);
    }
    if (first === 0xfe) return this.uint32();
    const v = this.uint64();
    if (v > BigInt(this.#bytes.byteLength)) throw new RangeError('count larger than the transaction');
    return Number(v);
  }
  slice(from: number, to: number): Uint8Array {
    return this.#bytes.subarray(from, to);
  }
}

function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

/**
 * Parses a serialized transaction (legacy or BIP 144 segwit). The whole input must be consumed;
 * malformed or truncated bytes give an error result, never a throw.
 */
export function parseBitcoinTransaction(raw: Uint8Array): Result<ParsedBitcoinTx> {
  try {
    const r = new Reader(raw);
    const version = r.uint32();
    const segwit = r.peek(0) === 0x00 && r.peek(1) === 0x01;
    if (segwit) r.take(2);
    const bodyStart = r.offset;
    const inputCount = r.varint();
    if (inputCount === 0) return err(coreError('ARTIFACT_SCHEMA_INVALID', 'transaction has no inputs'));
    for (let i = 0; i < inputCount; i++) {
      r.take(36);
      r.take(r.varint());
      r.take(4);
    }
    const outputCount = r.varint();
    const outputs: BitcoinTxOutput[] = [];
    for (let i = 0; i < outputCount; i++) {
      const value = r.uint64();
      const script = r.take(r.varint()).slice();
      outputs.push({ value, script });
    }
    const bodyEnd = r.offset;
    if (segwit) {
      for (let i = 0; i < inputCount; i++) {
        const items = r.varint();
        for (let j = 0; j < items; j++) r.take(r.varint());
      }
    }
    const lockTime = r.take(4);
    if (!r.done) return err(coreError('ARTIFACT_SCHEMA_INVALID', 'bytes after the transaction'));
    const stripped = concatBytes(raw.subarray(0, 4), r.slice(bodyStart, bodyEnd), lockTime);
    const txid = toHex(sha256(sha256(stripped)).reverse());
    return ok({ txid, version, inputCount, outputs, segwit });
  } catch (cause) {
    return err(
      coreError('ARTIFACT_SCHEMA_INVALID', `not a Bitcoin transaction: ${(cause as Error).message}`),
    );
  }
}
