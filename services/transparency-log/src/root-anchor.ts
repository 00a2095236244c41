// Anchors the latest signed root through the anchor service on a timer; one replica wins each size's claim. Follows
// every pending root anchor's receipt to confirmed, oldest first, a bounded number per round, with backoff (P63).
// DECISIONS D18 ("the signed root is anchored on a timer through the anchor service"), D19 (receipt status), D22.

import {
  type AnchorReceiptKind,
  anchorReceiptKind,
  DEFAULT_FINAL_CONFIRMATIONS,
  type FinalConfirmations,
  finalConfirmationsFor,
  toHex,
} from '@proto/core';
import { fetchBounded, redactUrl } from '@proto/service-kit';
import type { LogCheckpointRecord, LogRepository, RootAnchorOutcome, RootAnchorRecord } from '@proto/store';

interface AnchorLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Why a root anchoring step failed, the bounded `reason` of proto_log_root_anchor_failures_total (P196): the POST
 * could not be exchanged (unreachable, timeout, the cap, a redirect), the anchor service answered it with an error
 * status, the anchor service reported the anchor failed, or a receipt poll failed.
 */
export const ROOT_ANCHOR_FAILURE_REASONS = [
  'request_unavailable',
  'request_refused',
  'anchor_failed',
  'poll_failed',
] as const;
export type RootAnchorFailure = (typeof ROOT_ANCHOR_FAILURE_REASONS)[number];

export interface RootAnchorOptions {
  readonly repository: LogRepository;
  /** Base URL of the anchor service; requests go to `<url>/anchor`. */
  readonly url: string;
  readonly token?: string | undefined;
  readonly chain?: string | undefined;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly clock: () => Date;
  readonly log: AnchorLog;
  readonly fetch?: typeof fetch;
  readonly onAnchored?: (record: RootAnchorRecord) => void;
  /** Every failed step, including those whose warn line is written once per anchor (metrics; P196). */
  readonly onFailure?: (reason: RootAnchorFailure) => void;
  /** Pending receipts asked for per round at most, oldest first (P63; default 16). */
  readonly pollsPerRound?: number;
  /** Longest wait between two polls of one receipt that learnt nothing (P63; default 15 minutes). */
  readonly maxPollBackoffMs?: number;
  /**
   * The checkpoint to anchor (default: the newest signed one). A witnessed log passes its published checkpoint, so a
   * root no witness quorum cosigned is never anchored nor shown as `root_anchor` (P394).
   */
  readonly anchorable?: () => LogCheckpointRecord | undefined;
  /**
   * ROOT_ANCHOR_FINAL_CONFIRMATIONS: a confirmed anchor is followed until its receipt reports this depth on its
   * chain (P463; default P462's `evm=64,bitcoin=6`).
   */
  readonly finalConfirmations?: FinalConfirmations;
}

const DEFAULT_POLLS_PER_ROUND = 16;
const DEFAULT_MAX_POLL_BACKOFF_MS = 15 * 60_000;
/** An anchor service's answer is a receipt of a few kB; anything past this is not one (P156). */
export const MAX_ANCHOR_ANSWER_BYTES = 256 * 1024;

/**
 * One call to the anchor service: its whole answer within `timeoutMs` and up to
 * MAX_ANCHOR_ANSWER_BYTES; a redirect is refused, as it would carry the root and the token to a host the operator never
 * configured (P156). Throws on any of these; the caller treats it as the anchor service being unavailable.
 */
async function exchange(
  options: RootAnchorOptions,
  url: URL,
  init: RequestInit,
): Promise<{ status: number; ok: boolean; text: string }> {
  const answer = await fetchBounded(url, {
    ...init,
    timeoutMs: options.timeoutMs,
    maxBytes: MAX_ANCHOR_ANSWER_BYTES,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    failWith: (fault) =>
      fault.kind === 'redirect'
        ? new Error(
            `HTTP ${fault.status}: redirects are not followed (configure the final ANCHOR_SERVICE_URL)`,
          )
        : fault.error,
  });
  return { status: answer.status, ok: answer.ok, text: answer.text() };
}

/**
 * P63: the wait before asking again about a receipt that learnt nothing on its `polls`-th poll: the anchoring
 * interval, doubled per fruitless poll, capped. A chain that needs an hour to bury a write costs a handful of
 * requests per root, and a backlog of old pending roots cannot crowd out the newest one for long.
 */
/**
 * P392: a root anchor read `confirmed` is asked about again, with the same doubling wait as a pending one (from
 * ROOT_ANCHOR_INTERVAL_MS, at most the poll cap): the anchor service moves a receipt whose transaction a
 * reorganisation removed back to pending (P52), and the log must not keep serving it as confirmed. P463: until its
 * receipt reports the chain's final confirmations (ROOT_ANCHOR_FINAL_CONFIRMATIONS); a receipt that states no depth,
 * this many polls (P392's watch).
 */
export const ROOT_ANCHOR_CONFIRMED_POLLS = 8;
/**
 * P463: the most polls of a confirmed anchor whose receipt stays short of the final depth: the anchor service reports
 * confirmations only while it watches the write (ANCHOR_REORG_WATCH_DEPTH, by default twice the chain's
 * confirmations: 24 on Ethereum), so a receipt may never reach 64. 32 polls at the 15-minute cap is about 8 hours,
 * well past 64 Ethereum blocks (about 13 minutes) and 6 Bitcoin blocks (about an hour).
 */
export const ROOT_ANCHOR_CONFIRMED_POLLS_MAX = 32;
/** The next poll of an anchor no longer followed: never (ISO text, compared as text by the store). */
const NOT_FOLLOWED = new Date('9999-12-31T23:59:59.999Z');

export function pollBackoffMs(polls: number, intervalMs: number, maxMs: number): number {
  const base = Math.max(1, intervalMs);
  return Math.min(maxMs, base * 2 ** Math.min(Math.max(0, polls), 30));
}

/** `root_anchor` in GET /root/signed: SPEC.md's {chain, tx_id, block_height} plus what identifies the root. */
export interface RootAnchorView {
  readonly tree_size: number;
  readonly root: string;
  readonly bundle_hash: string;
  readonly chain: string | null;
  readonly tx_id: string | null;
  readonly block_height: number | null;
  readonly status: string;
  readonly anchored_at: string;
  readonly receipt?: unknown;
}

export function rootAnchorView(record: RootAnchorRecord): RootAnchorView {
  let receipt: unknown;
  try {
    receipt = record.receiptJson === null ? undefined : JSON.parse(record.receiptJson);
  } catch {
    receipt = undefined;
  }
  return {
    tree_size: record.size,
    root: toHex(record.root),
    bundle_hash: `sha256:${toHex(record.root)}`,
    chain: record.chain,
    tx_id: record.txId,
    block_height: record.blockHeight,
    status: record.status,
    anchored_at: record.updatedAt,
    ...(receipt === undefined ? {} : { receipt }),
  };
}

/** What one receipt poll gave: an outcome, nothing learnt, or a fault the operator is told of (P189). */
type PollResult =
  | { readonly outcome: RootAnchorOutcome; readonly fault?: undefined; readonly depth?: ReceiptDepth }
  | { readonly outcome?: undefined; readonly fault?: string; readonly depth?: undefined };

/** The confirmations a receipt reports and the kind of chain it is on (P463). */
interface ReceiptDepth {
  readonly confirmations: number;
  readonly kind: AnchorReceiptKind;
}

function depthOf(receipt: Record<string, unknown>): ReceiptDepth | undefined {
  const confirmations = receipt['confirmations'];
  if (typeof confirmations !== 'number' || !Number.isSafeInteger(confirmations) || confirmations < 0)
    return undefined;
  return { confirmations, kind: anchorReceiptKind(receipt) };
}

/**
 * Follows a root anchor while the anchor service reports it pending (issue 18): its receipt moves through
 * submitted and confirmed as the chain buries the write, or back to pending after a reorganisation. Asks
 * GET <url>/anchor/<bundle_hash>; an unreachable service or an unknown hash leaves the record as it is, and is
 * returned as a fault for the caller to log.
 */
async function pollReceipt(options: RootAnchorOptions, record: RootAnchorRecord): Promise<PollResult> {
  const bundleHash = `sha256:${toHex(record.root)}`;
  try {
    const response = await exchange(options, new URL(`anchor/${bundleHash}`, withSlash(options.url)), {
      headers: { accept: 'application/json' },
    });
    if (!response.ok) return { fault: `anchor service answered ${response.status}` };
    const body = JSON.parse(response.text) as { anchor_receipt?: Record<string, unknown> } | null;
    // GET answers 200 for a pending receipt too: without the receipt's own status nothing is learnt.
    const receipt = body?.anchor_receipt;
    if (typeof receipt?.['status'] !== 'string') return {};
    const outcome = outcomeFromResponse(response.status, body, record.chain ?? options.chain);
    const depth = depthOf(receipt);
    return depth === undefined ? { outcome } : { outcome, depth };
  } catch (error) {
    // fetchBounded's faults carry no userinfo or query of the URL (P540, which took over P189's strip here).
    return { fault: (error as Error).message };
  }
}

function pick(source: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) {
    const value = source[name];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/**
 * Reads what the anchor service answered. Its receipt shape (D19) names the transaction and block
 * when the chain has them and a status (`pending` until confirmed); a 202 with no transaction yet
 * is `pending`. Fields may sit at the top level or under `receipt`.
 */
export function outcomeFromResponse(
  status: number,
  body: unknown,
  chain: string | undefined,
): RootAnchorOutcome {
  const top =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {};
  // Our anchor service answers {anchor_receipt}; others {receipt} or flat fields.
  const nested = top['anchor_receipt'] ?? top['receipt'];
  const receipt =
    typeof nested === 'object' && nested !== null && !Array.isArray(nested)
      ? { ...top, ...(nested as Record<string, unknown>) }
      : top;
  const txId = pick(receipt, 'tx_id', 'tx_hash', 'txid');
  const height = pick(receipt, 'block_height', 'block_number');
  const statusText = pick(receipt, 'status');
  // `submitted` (written, not yet at depth) is still pending for the log: only `confirmed` is final.
  const declared =
    statusText === 'confirmed' || statusText === 'pending' || statusText === 'failed'
      ? statusText
      : statusText === 'submitted'
        ? 'pending'
        : undefined;
  const anchorStatus = declared ?? (typeof txId === 'string' && status !== 202 ? 'confirmed' : 'pending');
  const chainName = pick(receipt, 'chain');
  return {
    status: anchorStatus,
    chain: typeof chainName === 'string' ? chainName : (chain ?? null),
    txId: typeof txId === 'string' ? txId : null,
    blockHeight: typeof height === 'number' && Number.isSafeInteger(height) ? height : null,
    receiptJson: JSON.stringify(body ?? null),
    ...(anchorStatus === 'failed' ? { error: 'the anchor service reported the anchor failed' } : {}),
  };
}

export class RootAnchorer {
  readonly #options: RootAnchorOptions;
  #latest: RootAnchorRecord | undefined;
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  /**
   * Sizes whose receipt poll failed and was logged (P189): one line per anchor until a poll of it gets an
   * answer again, as a fault that lasts (the cap, a down service) would otherwise repeat at every backoff.
   */
  readonly #pollFaultsLogged = new Set<number>();

  constructor(options: RootAnchorOptions) {
    this.#options = options;
  }

  /** The newest anchor that the anchor service accepted (pending or confirmed). */
  get latest(): RootAnchorRecord | undefined {
    return this.#latest;
  }

  async refresh(): Promise<void> {
    this.#latest = await this.#options.repository.latestRootAnchor({ settledOnly: true });
  }

  /**
   * P63: asks the anchor service about every pending root anchor that is due, oldest first, at most
   * `pollsPerRound` per round; each poll that learns nothing pushes that anchor's next poll back (doubling).
   */
  async #pollPending(): Promise<void> {
    const { repository, clock } = this.#options;
    const limit = this.#options.pollsPerRound ?? DEFAULT_POLLS_PER_ROUND;
    const due = await repository.dueRootAnchors(clock(), limit, {
      confirmedPolls: ROOT_ANCHOR_CONFIRMED_POLLS_MAX,
    });
    let latestChanged = false;
    for (const record of due) {
      const { outcome, fault, depth } = await pollReceipt(this.#options, record);
      if (fault !== undefined) this.#options.onFailure?.('poll_failed');
      if (outcome?.status === 'failed' && record.status !== 'failed')
        this.#options.onFailure?.('anchor_failed');
      if (fault === undefined) this.#pollFaultsLogged.delete(record.size);
      else if (!this.#pollFaultsLogged.has(record.size)) {
        this.#pollFaultsLogged.add(record.size);
        this.#options.log.warn(
          { tree_size: record.size, url: redactUrl(this.#options.url), error: fault },
          'root anchor receipt poll failed; asked again after its backoff',
        );
      }
      if (
        outcome === undefined ||
        (outcome.status === record.status && (outcome.txId ?? null) === record.txId)
      ) {
        const wait = pollBackoffMs(
          record.polls,
          this.#options.intervalMs,
          this.#options.maxPollBackoffMs ?? DEFAULT_MAX_POLL_BACKOFF_MS,
        );
        const followed = outcome === undefined || this.#stillFollowed(record, depth);
        await repository.deferRootAnchorPoll(
          record.size,
          followed ? new Date(clock().getTime() + wait) : NOT_FOLLOWED,
        );
        continue;
      }
      await repository.finishRootAnchor(record.size, outcome, clock());
      this.#options.log.info(
        { tree_size: record.size, status: outcome.status, tx_id: outcome.txId },
        'root anchor receipt updated from the anchor service',
      );
      if (record.size >= (this.#latest?.size ?? 0)) latestChanged = true;
    }
    if (!latestChanged) return;
    await this.refresh();
    if (this.#latest !== undefined) this.#options.onAnchored?.(this.#latest);
  }

  /**
   * P463: whether a confirmed anchor whose poll learnt nothing new is asked about again: until its receipt reports
   * its chain's final confirmations; a receipt that states no depth, for ROOT_ANCHOR_CONFIRMED_POLLS polls (P392).
   * Pending ones always are. The store stops at ROOT_ANCHOR_CONFIRMED_POLLS_MAX in any case.
   */
  #stillFollowed(record: RootAnchorRecord, depth: ReceiptDepth | undefined): boolean {
    if (record.status !== 'confirmed') return true;
    if (depth === undefined) return record.polls + 1 < ROOT_ANCHOR_CONFIRMED_POLLS;
    const final = finalConfirmationsFor(
      this.#options.finalConfirmations ?? DEFAULT_FINAL_CONFIRMATIONS,
      record.chain ?? undefined,
      depth.kind,
    );
    return depth.confirmations < final;
  }

  tick(): Promise<void> {
    this.#running ??= this.#round().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #round(): Promise<void> {
    const { repository, clock } = this.#options;
    const checkpoint =
      this.#options.anchorable === undefined
        ? await repository.latestCheckpoint()
        : this.#options.anchorable();
    await this.refresh();
    await this.#pollPending();
    if (checkpoint === undefined || checkpoint.size === 0) return;
    const last = await repository.latestRootAnchor();
    if (last !== undefined && last.size > checkpoint.size) return;
    if (
      last !== undefined &&
      last.size === checkpoint.size &&
      last.status !== 'failed' &&
      last.status !== 'requesting'
    )
      return;
    const now = clock();
    // A claim older than a few timeouts belongs to a replica that died mid-request: take it over.
    const staleBefore = new Date(now.getTime() - 3 * this.#options.timeoutMs);
    if (!(await repository.claimRootAnchor(checkpoint.size, checkpoint.root, now, staleBefore))) return;
    const bundleHash = `sha256:${toHex(checkpoint.root)}`;
    let outcome: RootAnchorOutcome;
    let failure: RootAnchorFailure = 'anchor_failed';
    try {
      const response = await exchange(this.#options, new URL('anchor', withSlash(this.#options.url)), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(this.#options.token ? { authorization: `Bearer ${this.#options.token}` } : {}),
        },
        body: JSON.stringify({
          bundle_hash: bundleHash,
          ...(this.#options.chain ? { chain: this.#options.chain } : {}),
        }),
      });
      const text = response.text;
      let body: unknown = text;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        // a non-JSON answer is kept as text in the error below
      }
      if (response.ok) {
        outcome = outcomeFromResponse(response.status, body, this.#options.chain);
      } else {
        failure = 'request_refused';
        outcome = {
          status: 'failed',
          receiptJson: JSON.stringify(body),
          error: `anchor service answered ${response.status}`,
        };
      }
    } catch (error) {
      failure = 'request_unavailable';
      outcome = {
        status: 'failed',
        error: `anchor request failed: ${(error as Error).message}`,
      };
    }
    await repository.finishRootAnchor(checkpoint.size, outcome, clock());
    if (outcome.status === 'failed') {
      this.#options.onFailure?.(failure);
      this.#options.log.warn(
        { tree_size: checkpoint.size, error: outcome.error },
        'root anchoring failed; retried next round',
      );
    } else {
      this.#options.log.info(
        { tree_size: checkpoint.size, bundle_hash: bundleHash, status: outcome.status, tx_id: outcome.txId },
        'signed root sent to the anchor service',
      );
    }
    await this.refresh();
    if (this.#latest !== undefined && this.#latest.size === checkpoint.size)
      this.#options.onAnchored?.(this.#latest);
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      this.tick().catch((error: unknown) =>
        this.#options.log.error({ err: error }, 'root anchoring round failed'),
      );
    }, this.#options.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
