// Signs a C2SP checkpoint of the committed tree on a timer when it has grown, after proving it extends the last one.
// DECISIONS D18 (signed checkpoints, Ed25519 + ML-DSA-65 lines); c2sp.org/tlog-checkpoint (never sign inconsistent heads).

import {
  bytesEqual,
  type CryptoBackend,
  type NoteSigner,
  signLogCheckpoint,
  toHex,
  verifyRfc9162Consistency,
} from '@proto/core';
import type { LogCheckpointRecord, LogRepository } from '@proto/store';
import { consistencyAnswer, type NodeCache, rootAt } from './tree.ts';
import type { Witnessing } from './witnessing.ts';

interface CheckpointLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface CheckpointerOptions {
  readonly repository: LogRepository;
  readonly nodes: NodeCache;
  readonly origin: string;
  readonly signers: readonly NoteSigner[];
  readonly backend: CryptoBackend;
  readonly intervalMs: number;
  readonly clock: () => Date;
  readonly log: CheckpointLog;
  readonly onSigned?: (checkpoint: LogCheckpointRecord) => void;
  /** A round failed (metrics: a failing checkpointer must alert, not only log; issue 16). */
  readonly onFailure?: (error: unknown) => void;
  /** Witnesses configured (issue 18): each round submits the newest checkpoint and republishes. */
  readonly witnessing?: Witnessing | undefined;
}

/** The tree disagrees with itself or with a checkpoint already signed: signing stops, an operator must look. */
export class InconsistentTreeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InconsistentTreeError';
  }
}

export class Checkpointer {
  readonly #options: CheckpointerOptions;
  #latest: LogCheckpointRecord | undefined;
  #running: Promise<LogCheckpointRecord | undefined> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lastSeenSize = 0;

  constructor(options: CheckpointerOptions) {
    this.#options = options;
  }

  /** The largest committed tree size this instance has seen (its own batches, or a round's head). */
  get lastSeenSize(): number {
    return this.#lastSeenSize;
  }

  observeSize(size: number): void {
    if (size > this.#lastSeenSize) this.#lastSeenSize = size;
  }

  /** The newest checkpoint this instance has stored or seen. */
  get latest(): LogCheckpointRecord | undefined {
    return this.#latest;
  }

  /**
   * The checkpoint to serve: the newest signed one, or with witnesses configured the newest one that has
   * gathered the witness quorum, cosignature lines included (undefined until one has).
   */
  get published(): LogCheckpointRecord | undefined {
    const witnessing = this.#options.witnessing;
    return witnessing === undefined ? this.#latest : witnessing.published;
  }

  /**
   * The stored checkpoint of `size` as it may be served (`?tree_size=`): the log's note, or with witnesses only a
   * size the quorum cosigned, with its cosignature lines (P390).
   */
  checkpointOfSize(size: number): Promise<LogCheckpointRecord | undefined> {
    const witnessing = this.#options.witnessing;
    return witnessing === undefined
      ? this.#options.repository.checkpoint(size)
      : witnessing.cosignedCheckpoint(size);
  }

  /** One round: sign the committed head if no checkpoint covers it yet; concurrent calls share the round. */
  tick(): Promise<LogCheckpointRecord | undefined> {
    this.#running ??= this.#roundThenWitness()
      .catch((error: unknown) => {
        this.#options.onFailure?.(error);
        throw error;
      })
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }

  async #roundThenWitness(): Promise<LogCheckpointRecord | undefined> {
    const latest = await this.#round();
    // Also when nothing new was signed: a witness that was down is asked again (it catches up).
    if (latest !== undefined) await this.#options.witnessing?.round(latest);
    return latest;
  }

  async #round(): Promise<LogCheckpointRecord | undefined> {
    const { repository, nodes } = this.#options;
    const head = await repository.head();
    this.observeSize(head.size);
    let latest = await repository.latestCheckpoint();
    if (latest !== undefined && latest.size >= head.size) {
      this.#latest = latest;
      return latest;
    }
    // The head row and the stored nodes must agree, and the new tree must extend the last signed
    // one (another replica may have signed it): a log never signs two inconsistent checkpoints.
    const root = await rootAt(nodes, head.size);
    if (!bytesEqual(root, head.root)) {
      throw new InconsistentTreeError(`stored nodes give another root than the head at size ${head.size}`);
    }
    if (latest !== undefined) {
      const proof = await consistencyAnswer(nodes, latest.size, head.size);
      if (!verifyRfc9162Consistency(latest.size, head.size, latest.root, head.root, proof.proof)) {
        throw new InconsistentTreeError(
          `tree of size ${head.size} does not extend the checkpoint of size ${latest.size}`,
        );
      }
    }
    const note = signLogCheckpoint(
      { origin: this.#options.origin, size: head.size, root },
      this.#options.signers,
      this.#options.backend,
    );
    if (!note.ok) throw new Error(`cannot sign checkpoint: ${note.error.message}`);
    const record: LogCheckpointRecord = {
      size: head.size,
      root,
      note: note.value,
      signedAt: this.#options.clock().toISOString(),
    };
    const saved = await repository.saveCheckpoint(record);
    if (saved === 'conflict') {
      throw new InconsistentTreeError(
        `a checkpoint of size ${head.size} with another root is already stored`,
      );
    }
    latest = saved === 'created' ? record : await repository.checkpoint(head.size);
    if (saved === 'created') {
      this.#options.log.info({ tree_size: head.size, root: toHex(root) }, 'signed checkpoint');
    }
    if (latest !== undefined && (this.#latest === undefined || latest.size > this.#latest.size)) {
      this.#latest = latest;
      this.#options.onSigned?.(latest);
    }
    return this.#latest;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      this.tick().catch((error: unknown) => {
        this.#options.log.error({ err: error }, 'checkpoint round failed');
      });
    }, this.#options.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }
}
