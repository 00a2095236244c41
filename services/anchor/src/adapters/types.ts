// What the worker needs from a chain: sign a batch's write, broadcast it, find where it is, shape the receipt.
// SPEC.md "Anchor receipt" (three shapes) and DECISIONS D19 (status, confirmations, path per receipt).
import type { BoundedFetchFault } from '@proto/service-kit';
import type { AnchorBatch, AnchorItem, BatchProgress, WriteIntent } from '@proto/store';

export type ChainKind = 'evm' | 'bitcoin' | 'log';

export interface PrepareContext {
  /** Nonces of this chain's writes that are stored but not yet confirmed (EVM: never reuse or skip one). */
  readonly inFlightNonces: readonly number[];
}

export type BroadcastResult =
  | {
      readonly ok: true;
      /** Per-request data learnt while writing (log index and proof). */
      readonly itemDetails?: readonly { readonly seq: number; readonly detail: unknown }[];
      /** Known at once (a log entry is final when stored). */
      readonly progress?: BatchProgress;
    }
  | {
      readonly ok: false;
      /** true: the chain refused these bytes for good (write again with new ones); false: try again later. */
      readonly definitive: boolean;
      readonly error: string;
    };

export type TrackResult =
  /** Neither mined nor in the mempool (never arrived, dropped, or reorganised away). */
  | { readonly state: 'unknown' }
  /** Waiting in the mempool. */
  | { readonly state: 'pending' }
  | {
      readonly state: 'included';
      readonly blockNumber: number;
      readonly blockHash: string | null;
      readonly eventIndex: number | null;
      readonly anchoredAt: string | null;
      readonly confirmations: number;
      /** Set when the write found on chain is an earlier version (a fee bump's replaced transaction). */
      readonly txId?: string;
    }
  /** Mined but did not anchor (reverted, or no Anchored event). */
  | { readonly state: 'failed'; readonly error: string };

export interface ChainAdapter {
  /** The name clients use in POST /anchor `chain`, and receipts carry. */
  readonly name: string;
  readonly kind: ChainKind;
  readonly confirmationsRequired: number;
  /** false: every request is written as soon as it arrives (the log batches on its own). */
  readonly batches: boolean;
  /** Public facts for /health (never keys). */
  describe(): Record<string, unknown>;
  /** The paying wallet's balance in whole coins (metrics, wallet-low alert); absent when nothing pays. */
  balance?(): Promise<{ readonly currency: string; readonly amount: number }>;
  /** Readiness: the chain's API answers (and is the configured chain). */
  ready(): Promise<void>;
  /** Builds and signs the write of a batch. Reads the chain, writes nothing to it. */
  prepare(batch: AnchorBatch, items: readonly AnchorItem[], context: PrepareContext): Promise<WriteIntent>;
  /** Sends the stored intent. Sending the same intent twice is harmless. */
  broadcast(batch: AnchorBatch, items: readonly AnchorItem[]): Promise<BroadcastResult>;
  /** Where a sent batch stands on chain. */
  track(batch: AnchorBatch): Promise<TrackResult>;
  /**
   * A replacement for a sent write still waiting in the mempool (Bitcoin fee bump P53, EVM fee bump P64), or
   * undefined when none is due. Signs (and may read fees), writes nothing to the chain.
   */
  bump?(batch: AnchorBatch, now: Date): WriteIntent | undefined | Promise<WriteIntent | undefined>;
  /**
   * The chain-specific receipt fields of a request (SPEC.md's shape). `batchFields` false: the adapter
   * supplies batch_root / batch_size / leaf_index / merkle_path / anchored_at itself (the log's own tree).
   */
  receipt(
    item: AnchorItem,
    batch: AnchorBatch | undefined,
  ): {
    readonly fields: Record<string, unknown>;
    readonly batchFields: boolean;
  };
}

/** An HTTP or transport failure: the source may answer later. */
export class TransientError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TransientError';
  }
}

/**
 * fetchBounded's `failWith` for a chain's API (`label`: `log /add`, `esplora /tx`): every fault of the exchange
 * (unreachable, too slow, too large, a redirect) is transient, the request stays queued (P155).
 */
export function transientFault(label: string): (fault: BoundedFetchFault) => TransientError {
  return (fault) =>
    fault.kind === 'redirect'
      ? new TransientError(
          `${label}: HTTP ${fault.status} (redirects are not followed: configure the final URL)`,
        )
      : new TransientError(`${label}: ${fault.error.message}`, { cause: fault.error });
}
