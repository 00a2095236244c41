// The anchoring loop per chain: close due batches, write each root once (intent stored before broadcast), reconcile
// after a restart, follow confirmations. DECISIONS D19; docs/architecture.md §4 (SKIP LOCKED claims, nothing sent twice).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AnchorBatch, AnchorItem, AnchorRepository } from '@proto/store';
import type { ChainAdapter } from './adapters/types.ts';
import { TransientError } from './adapters/types.ts';
import { ConfirmationFollower, failWrite } from './confirmations.ts';
import { buildAnchorBatch } from './core.ts';

export interface WorkerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface AnchorWorkerOptions {
  readonly repo: AnchorRepository;
  readonly adapters: ReadonlyMap<string, ChainAdapter>;
  readonly mode: 'batch' | 'individual';
  readonly batchMax: number;
  readonly batchIntervalMs: number;
  readonly pollIntervalMs: number;
  readonly maxAttempts: number;
  readonly leaseMs: number;
  /**
   * Confirmed writes are checked again until this many confirmations (ANCHOR_REORG_WATCH_DEPTH): one whose block
   * left the best chain goes back to pending and is sent again. 0 or absent: twice the chain's confirmations, at least its final depth (P500).
   */
  readonly reorgWatchDepth?: number;
  readonly log: WorkerLog;
  /**
   * This replica's id in the chain leases (default host:pid:random). A stable id (the service passes
   * ANCHOR_REPLICA_ID or the host name) lets a restarted replica take its lease back without waiting.
   */
  readonly owner?: string;
  /** Called after a broadcast succeeded and before it is recorded (the crash test's hook). */
  readonly afterBroadcast?: (batch: AnchorBatch) => void;
  /**
   * Counts batch outcomes per chain: `sent`, `confirmed`, `failed` (refused for good), `requeued`,
   * `send_failed` (a send that may succeed later), `unreachable` (the chain's API did not answer),
   * `reorged` (a write's block left the best chain), `fee_bumped` (a stuck write replaced with a higher fee).
   */
  readonly onOutcome?: (chain: string, outcome: string, count?: number) => void;
}

/** Builds a batch tree for the repository (D19: RFC 9162 over leaf hashes of the 32 digest bytes). */
export function batchTree(bundleHashes: readonly string[]) {
  const tree = buildAnchorBatch(bundleHashes);
  if (!tree.ok) throw new Error(tree.error.message);
  return tree.value;
}

/** Close-and-send rounds in one pass before confirmations are followed and the pass ends. */
const MAX_ROUNDS_PER_PASS = 64;

interface ChainState {
  current: Promise<void>;
  queued: { promise: Promise<void>; track: boolean } | undefined;
  enqueuedSinceClose: number;
}

export class AnchorWorker {
  readonly owner: string;
  readonly #o: AnchorWorkerOptions;
  readonly #chains = new Map<string, ChainState>();
  readonly #follower: ConfirmationFollower;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #started = false;

  constructor(options: AnchorWorkerOptions) {
    this.#o = options;
    this.#follower = new ConfirmationFollower(
      options,
      () => this.#stopped,
      (adapter, batch, items) => this.#broadcast(adapter, batch, items),
    );
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  }

  /** Runs every chain now (reconciling what a previous process left), then every ANCHOR_POLL_INTERVAL_MS. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    const loop = async () => {
      if (this.#stopped) return;
      await Promise.all([...this.#o.adapters.keys()].map((chain) => this.run(chain, true)));
      if (!this.#stopped) this.#timer = setTimeout(loop, this.#o.pollIntervalMs);
    };
    void loop();
  }

  /** Stops the loop, waits for runs in flight, and hands the chains' leases back. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await Promise.all([...this.#chains.values()].map((s) => s.queued?.promise ?? s.current));
    await Promise.all(
      [...this.#o.adapters.keys()].map((chain) =>
        this.#o.repo.releaseLease(chain, this.owner).catch(() => undefined),
      ),
    );
  }

  /** A request was queued: write at once when the chain does not batch or a full batch is waiting. */
  noteEnqueued(chain: string): void {
    const state = this.#state(chain);
    state.enqueuedSinceClose++;
    const adapter = this.#o.adapters.get(chain);
    if (adapter && (!adapter.batches || state.enqueuedSinceClose >= this.#o.batchMax))
      void this.run(chain, false);
  }

  /**
   * One pass over a chain (runs of one chain never overlap; a pass already waiting absorbs new calls).
   * `track`: also follow confirmations of sent writes. Never rejects.
   */
  run(chain: string, track: boolean): Promise<void> {
    const state = this.#state(chain);
    if (state.queued) {
      state.queued.track ||= track;
      return state.queued.promise;
    }
    const queued = { promise: Promise.resolve(), track };
    queued.promise = state.current.then(async () => {
      state.queued = undefined;
      if (this.#stopped) return;
      try {
        await this.#runChain(chain, queued.track);
      } catch (error) {
        if (error instanceof TransientError) {
          this.#o.onOutcome?.(chain, 'unreachable');
          this.#o.log.warn(
            { chain, err: error.message },
            'anchor: chain unreachable, retrying on the next pass',
          );
        } else {
          this.#o.log.error({ chain, err: error }, 'anchor: pass failed');
        }
      }
    });
    state.queued = queued;
    state.current = queued.promise;
    return queued.promise;
  }

  #state(chain: string): ChainState {
    let state = this.#chains.get(chain);
    if (!state) {
      state = { current: Promise.resolve(), queued: undefined, enqueuedSinceClose: 0 };
      this.#chains.set(chain, state);
    }
    return state;
  }

  async #runChain(chain: string, track: boolean): Promise<void> {
    const adapter = this.#o.adapters.get(chain);
    if (!adapter) return;
    const repo = this.#o.repo;
    // One replica signs and broadcasts per chain at a time (nonces, UTXOs); the others only close batches.
    let leased = await repo.acquireLease(chain, this.owner, this.#o.leaseMs);
    let leasedAt = Date.now();
    if (leased) await this.#reconcile(adapter);
    // Closing and sending take turns (issue 16): at most one closed batch waits unsent, so a steady stream of
    // requests can no longer keep a pass closing batches while nothing reaches the chain.
    const started = Date.now();
    for (let round = 0; round < MAX_ROUNDS_PER_PASS && !this.#stopped; round++) {
      const waiting = await repo.batches(chain, ['created'], 1);
      if (waiting.length === 0) await this.#closeOne(chain, adapter);
      if (leased && Date.now() - leasedAt > this.#o.leaseMs / 3) {
        leased = await repo.acquireLease(chain, this.owner, this.#o.leaseMs);
        leasedAt = Date.now();
      }
      const sent = leased && (await this.#sendCreated(adapter, 1)) > 0;
      // Nothing went out (no lease, nothing due, or the chain refused or failed): wait for the next pass.
      if (!sent) break;
      // Leave room for confirmations and the other chains once in a while; the next pass continues.
      if (Date.now() - started > this.#o.leaseMs / 2) break;
    }
    if (leased && track) await this.#follower.track(adapter);
  }

  /** Closes one batch when one is due (full, or its oldest request waited BATCH_INTERVAL_MS). */
  async #closeOne(chain: string, adapter: ChainAdapter): Promise<boolean> {
    const immediate = !adapter.batches || this.#o.mode === 'individual';
    const dueBefore = immediate ? undefined : new Date(Date.now() - this.#o.batchIntervalMs).toISOString();
    const batch = await this.#o.repo.closeBatch(chain, {
      max: this.#o.batchMax,
      ...(dueBefore === undefined ? {} : { dueBefore }),
      build: batchTree,
    });
    if (batch === undefined) return false;
    this.#state(chain).enqueuedSinceClose = 0;
    this.#o.log.info({ chain, batch: batch.id, size: batch.size, root: batch.root }, 'anchor: batch closed');
    return true;
  }

  /** Batches whose intent was stored but whose broadcast was not recorded (a crash, or a refused send). */
  async #reconcile(adapter: ChainAdapter): Promise<void> {
    for (const batch of await this.#o.repo.batches(adapter.name, ['sending'])) {
      if (this.#stopped) return;
      const items = await this.#o.repo.batchItems(batch.id);
      const where = await adapter.track(batch);
      if (where.state === 'unknown') {
        // Not on chain and not in the mempool: send the very same signed bytes again (same nonce/inputs).
        if (!(await this.#broadcast(adapter, batch, items))) return;
      } else {
        this.#o.log.info(
          { chain: adapter.name, batch: batch.id, tx: batch.tx_id },
          'anchor: found a stored write on chain',
        );
        await this.#o.repo.markSent(batch.id);
        await this.#follower.apply(adapter, { ...batch, state: 'sent' }, where);
      }
    }
  }

  /** Sends up to `limit` closed batches, oldest first; returns how many went out. */
  async #sendCreated(adapter: ChainAdapter, limit: number): Promise<number> {
    const repo = this.#o.repo;
    let sent = 0;
    for (const batch of await repo.batches(adapter.name, ['created'], limit)) {
      if (this.#stopped) return sent;
      // Writes go out in order: the next one waits until the previous one was accepted.
      if ((await repo.batches(adapter.name, ['sending'], 1)).length > 0) return sent;
      const items = await repo.batchItems(batch.id);
      const inFlight = await repo.batches(adapter.name, ['sending', 'sent']);
      const intent = await adapter.prepare(batch, items, {
        inFlightNonces: inFlight.map((b) => b.nonce).filter((n): n is number => n !== null),
      });
      if (!(await repo.recordIntent(batch.id, intent, this.owner))) {
        this.#o.log.warn(
          { chain: adapter.name, batch: batch.id },
          'anchor: lease lost before sending; another replica continues',
        );
        return sent;
      }
      const stored = (await repo.batch(batch.id)) as AnchorBatch;
      if (!(await this.#broadcast(adapter, stored, items))) return sent;
      sent++;
    }
    return sent;
  }

  async #broadcast(
    adapter: ChainAdapter,
    batch: AnchorBatch,
    items: readonly AnchorItem[],
  ): Promise<boolean> {
    const repo = this.#o.repo;
    const result = await adapter.broadcast(batch, items);
    if (!result.ok) {
      if (result.definitive) {
        await failWrite(this.#o, adapter, batch, result.error, 'anchor: write refused');
      } else {
        this.#o.onOutcome?.(adapter.name, 'send_failed');
        this.#o.log.warn(
          { chain: adapter.name, batch: batch.id, err: result.error },
          'anchor: send failed, retrying later',
        );
      }
      return false;
    }
    this.#o.afterBroadcast?.(batch);
    // One transaction: a crash or a lost database between separate writes left a log batch `sent`, unconfirmed.
    await repo.markSent(batch.id, { itemDetails: result.itemDetails, progress: result.progress });
    this.#o.onOutcome?.(adapter.name, 'sent');
    if (result.progress?.confirmed) this.#o.onOutcome?.(adapter.name, 'confirmed');
    this.#o.log.info(
      { chain: adapter.name, batch: batch.id, tx: batch.tx_id, size: batch.size },
      'anchor: write sent',
    );
    return true;
  }
}
