// P461: the root anchors a witnessed log stored before P394 for checkpoints no witness quorum cosigned. They are not
// commitments the log stands by (no quorum saw those trees), yet the newest of them was shown as `root_anchor` beside
// an older published checkpoint, and one past the published size kept the anchorer from anchoring published roots
// until the log grew past it. Removed once per database, at the first start that knows the rule: later rows are only
// ever made for published checkpoints (P394), and running it again after the witness set changed would remove the
// anchors of checkpoints the previous witnesses cosigned.
import { toHex } from '@proto/core';
import type { LogRepository } from '@proto/store';

/** `tlog_meta` name recording that the sweep ran on this database. */
export const ROOT_ANCHOR_SWEEP_META = 'root_anchors_swept';

interface SweepLog {
  warn(obj: object, msg: string): void;
}

export async function sweepUnpublishedRootAnchors(options: {
  readonly repository: LogRepository;
  /** Ids of the configured witnesses (LOG_WITNESSES); empty: not a witnessed log, nothing is removed. */
  readonly witnesses: readonly string[];
  readonly quorum: number;
  readonly log: SweepLog;
}): Promise<void> {
  const { repository } = options;
  if ((await repository.meta(ROOT_ANCHOR_SWEEP_META)) !== undefined) return;
  // Also marked on a log without witnesses: its anchors were made under that log's rule, and turning witnesses on
  // later must not remove them.
  if (options.witnesses.length > 0) {
    const removed = await repository.deleteRootAnchorsWithoutQuorum(options.witnesses, options.quorum);
    for (const anchor of removed) {
      // The operator keeps what was on chain: the anchor service still holds the receipt.
      options.log.warn(
        {
          tree_size: anchor.size,
          root: toHex(anchor.root),
          status: anchor.status,
          chain: anchor.chain,
          tx_id: anchor.txId,
        },
        'root anchor of a checkpoint no witness quorum cosigned removed (stored before P394)',
      );
    }
  }
  await repository.setMeta(ROOT_ANCHOR_SWEEP_META, 'P461');
}
