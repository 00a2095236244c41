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

/** Anchors read per page: the sweep runs once, at a start, over every anchor the database holds. */
const SWEEP_PAGE = 500;

export async function sweepUnpublishedRootAnchors(options: {
  readonly repository: LogRepository;
  /**
   * Whether a quorum of the configured witnesses verifiably cosigned the checkpoint of a size (P543: their stored lines
   * are verified, not counted); absent: not a witnessed log, nothing is removed.
   */
  readonly quorumCosigned: ((size: number) => Promise<boolean>) | undefined;
  readonly log: SweepLog;
}): Promise<void> {
  const { repository, quorumCosigned } = options;
  if ((await repository.meta(ROOT_ANCHOR_SWEEP_META)) !== undefined) return;
  // Also marked on a log without witnesses: its anchors were made under that log's rule, and turning witnesses on
  // later must not remove them.
  if (quorumCosigned !== undefined) {
    let from = 0;
    for (;;) {
      const page = await repository.rootAnchors(from, SWEEP_PAGE);
      for (const anchor of page) {
        if (await quorumCosigned(anchor.size)) continue;
        const removed = await repository.deleteRootAnchor(anchor.size);
        // Another replica starting at once removed it first.
        if (removed === undefined) continue;
        // The operator keeps what was on chain: the anchor service still holds the receipt.
        options.log.warn(
          {
            tree_size: removed.size,
            root: toHex(removed.root),
            status: removed.status,
            chain: removed.chain,
            tx_id: removed.txId,
          },
          'root anchor of a checkpoint no witness quorum cosigned removed (stored before P394)',
        );
      }
      const last = page.at(-1);
      if (page.length < SWEEP_PAGE || last === undefined) break;
      from = last.size + 1;
    }
  }
  await repository.setMeta(ROOT_ANCHOR_SWEEP_META, 'P461');
}
