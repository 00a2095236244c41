// Following an anchoring worker's sent writes (worker.ts sends them): confirmations counted, a write stuck in the
// mempool replaced with a higher fee, a confirmed write that left the best chain sent again (reorganisations), a
// write gone from the chain broadcast again with the same bytes. DECISIONS D19; docs/architecture.md §4.
import type { AnchorBatch, AnchorItem } from '@proto/store';
import type { ChainAdapter, TrackResult } from './adapters/types.ts';
import { DEFAULT_FINAL_CONFIRMATIONS, finalConfirmationsFor } from './core.ts';
import type { AnchorWorkerOptions } from './worker.ts';

export type FollowerOptions = Pick<
  AnchorWorkerOptions,
  'repo' | 'log' | 'onOutcome' | 'maxAttempts' | 'reorgWatchDepth'
>;

/** A write refused or failed for good: the batch fails, its requests with attempts left are queued again. */
export async function failWrite(
  o: FollowerOptions,
  adapter: ChainAdapter,
  batch: AnchorBatch,
  error: string,
  message: string,
): Promise<void> {
  const requeued = await o.repo.failBatch(batch.id, error, o.maxAttempts);
  o.onOutcome?.(adapter.name, 'failed');
  if (requeued > 0) o.onOutcome?.(adapter.name, 'requeued', requeued);
  o.log.warn({ chain: adapter.name, batch: batch.id, err: error, requeued }, message);
}

/** The worker's broadcast: the same signed bytes again, recorded as every send is. */
type Resend = (adapter: ChainAdapter, batch: AnchorBatch, items: readonly AnchorItem[]) => Promise<boolean>;

/** A chain's sent and shallow confirmed writes, followed on each pass of the worker that holds its lease. */
export class ConfirmationFollower {
  readonly #o: FollowerOptions;
  readonly #stopped: () => boolean;
  readonly #resend: Resend;

  constructor(options: FollowerOptions, stopped: () => boolean, resend: Resend) {
    this.#o = options;
    this.#stopped = stopped;
    this.#resend = resend;
  }

  /** Every sent write's state on the chain, then the confirmed ones still shallow enough to be undone. */
  async track(adapter: ChainAdapter): Promise<void> {
    for (const batch of await this.#o.repo.batches(adapter.name, ['sent'])) {
      if (this.#stopped()) return;
      if (adapter.kind === 'log') {
        await this.#confirmAppended(adapter, batch);
        continue;
      }
      const where = await adapter.track(batch);
      if (where.state === 'pending' && (await this.#bump(adapter, batch))) continue;
      await this.apply(adapter, batch, where);
    }
    if (adapter.kind === 'log') return;
    const depth = this.#o.reorgWatchDepth || defaultWatchDepth(adapter);
    for (const batch of await this.#o.repo.shallowConfirmed(adapter.name, depth)) {
      if (this.#stopped()) return;
      await this.#recheck(adapter, batch, await adapter.track(batch));
    }
  }

  /**
   * A log batch is marked sent only once every append was acknowledged, and an acknowledged append is final (D18).
   * Sent but not confirmed is what an earlier version left when the process died, or lost its database, between
   * its two writes (now one transaction, markSent): confirm it, or its receipts would stay `submitted` for good
   * (the soak found such receipts).
   */
  async #confirmAppended(adapter: ChainAdapter, batch: AnchorBatch): Promise<void> {
    await this.#o.repo.recordProgress(batch.id, {
      confirmations: 1,
      confirmed: true,
      anchoredAt: batch.sent_at,
    });
    this.#o.onOutcome?.(adapter.name, 'confirmed');
    this.#o.log.warn(
      { chain: adapter.name, batch: batch.id },
      'anchor: appended batch found unconfirmed (its confirmation was never recorded); confirmed now',
    );
  }

  /**
   * A confirmed write still shallow enough to be undone: deeper now, or re-mined deep enough, it stays confirmed.
   * Gone from the best chain, back in the mempool or re-mined too shallow (a reorganisation), the batch returns to
   * `sending` and its receipts to pending; the next pass's reconcile sends the same bytes again or finds them.
   */
  async #recheck(adapter: ChainAdapter, batch: AnchorBatch, where: TrackResult): Promise<void> {
    const sameBlock = where.state === 'included' && where.blockHash === batch.block_hash;
    if (where.state === 'included' && (sameBlock || where.confirmations >= adapter.confirmationsRequired)) {
      await this.apply(adapter, batch, where);
      return;
    }
    if (!(await this.#o.repo.reopenBatch(batch.id))) return;
    this.#o.onOutcome?.(adapter.name, 'reorged');
    this.#o.log.warn(
      { chain: adapter.name, batch: batch.id, tx: batch.tx_id, block: batch.block_number, now: where.state },
      'anchor: a confirmed write left the best chain; back to pending, sent again',
    );
  }

  /** Replaces a write stuck in the mempool with a higher fee when the adapter says one is due. */
  async #bump(adapter: ChainAdapter, batch: AnchorBatch): Promise<boolean> {
    const intent = await adapter.bump?.(batch, new Date());
    if (intent === undefined) return false;
    const repo = this.#o.repo;
    const previous = { txId: batch.tx_id, rawTx: batch.raw_tx, detail: batch.detail };
    if (!(await repo.replaceWrite(batch.id, intent))) return false;
    const replaced = (await repo.batch(batch.id)) as AnchorBatch;
    const result = await adapter.broadcast(replaced, []);
    if (!result.ok) {
      // The original still waits in the mempool: keep tracking it rather than a replacement nobody relays.
      await repo.replaceWrite(batch.id, previous);
      this.#o.log.warn(
        { chain: adapter.name, batch: batch.id, err: result.error },
        'anchor: fee bump refused, keeping the original write',
      );
      return true;
    }
    this.#o.onOutcome?.(adapter.name, 'fee_bumped');
    this.#o.log.info(
      { chain: adapter.name, batch: batch.id, replaced: batch.tx_id, tx: intent.txId },
      'anchor: stuck write replaced with a higher fee',
    );
    return true;
  }

  /** Records what the chain says of a write (included, pending, unknown, failed). */
  async apply(adapter: ChainAdapter, batch: AnchorBatch, where: TrackResult): Promise<void> {
    const repo = this.#o.repo;
    switch (where.state) {
      case 'included': {
        const confirmed = where.confirmations >= adapter.confirmationsRequired;
        await repo.recordProgress(batch.id, {
          confirmations: where.confirmations,
          confirmed,
          ...(where.txId === undefined ? {} : { txId: where.txId }),
          blockNumber: where.blockNumber,
          blockHash: where.blockHash,
          eventIndex: where.eventIndex,
          anchoredAt: where.anchoredAt,
        });
        if (confirmed) {
          this.#o.onOutcome?.(adapter.name, 'confirmed');
          this.#o.log.info(
            { chain: adapter.name, batch: batch.id, block: where.blockNumber },
            'anchor: write confirmed',
          );
        }
        return;
      }
      case 'pending':
        if (batch.block_number !== null) await repo.recordProgress(batch.id, this.#unmined());
        return;
      case 'unknown': {
        if (adapter.kind === 'log') return;
        if (batch.block_number !== null) {
          this.#o.log.warn(
            { chain: adapter.name, batch: batch.id, tx: batch.tx_id },
            'anchor: write left the chain; sending it again',
          );
          await repo.recordProgress(batch.id, this.#unmined());
        }
        const items = await repo.batchItems(batch.id);
        await this.#resend(adapter, batch, items);
        return;
      }
      case 'failed': {
        await failWrite(this.#o, adapter, batch, where.error, 'anchor: write failed on chain');
        return;
      }
    }
  }

  #unmined() {
    return {
      confirmations: 0,
      confirmed: false,
      blockNumber: null,
      blockHash: null,
      eventIndex: null,
      anchoredAt: null,
    };
  }
}

/**
 * ANCHOR_REORG_WATCH_DEPTH's default (0): twice the chain's confirmations, and at least its final depth (P462's
 * table: evm 64, bitcoin 6), P500. A receipt reports confirmations only while its write is watched, and the
 * transparency log follows its root anchors until a receipt reports that depth (P463): a watch ending at 24 on
 * Ethereum left every root anchor polled to the log's cap instead.
 */
export function defaultWatchDepth(
  adapter: Pick<ChainAdapter, 'name' | 'kind' | 'confirmationsRequired'>,
): number {
  const final =
    adapter.kind === 'log'
      ? 0
      : finalConfirmationsFor(DEFAULT_FINAL_CONFIRMATIONS, adapter.name, adapter.kind);
  return Math.max(2 * adapter.confirmationsRequired, final);
}
