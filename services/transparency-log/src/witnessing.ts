// Gathers witness cosignatures on the log's newest checkpoint and decides which checkpoint is published: the newest
// one that LOG_WITNESS_QUORUM configured witnesses verifiably cosigned, with their lines appended (c2sp.org/
// tlog-witness, tlog-cosignature, signed-note). Issue 18 item 2, the log side; docs/project-decisions.md P56–P58.
import {
  type CryptoBackend,
  checkWitnessQuorum,
  dateTimeInstant,
  formatSignatureLine,
  parseSignedNote,
  verifyCosignatures,
} from '@proto/core';
import type {
  LogCheckpointRecord,
  LogCosignatureRecord,
  LogCosignatureRepository,
  LogRepository,
} from '@proto/store';
import { consistencyAnswer, type NodeCache } from './tree.ts';
import { submitToWitness, type WitnessAnswer, WitnessUnavailableError } from './witness-client.ts';
import type { WitnessEndpoint } from './witness-config.ts';

/** What one submission to one witness came to (the `outcome` label of proto_log_witness_submissions_total). */
export type WitnessOutcome = 'cosigned' | 'refused' | 'invalid' | 'timeout' | 'unavailable';

/** How many quorum sizes are tried, newest first, when the newest stored one does not verify. */
const PUBLISH_CANDIDATES = 8;

/** Older cosigned checkpoints kept for `?tree_size=` reads (P390); the map is emptied when full. */
const OLDER_CACHE_ENTRIES = 256;

/**
 * How far a cosignature's time may lie from the log's clock (P213): at most this much after the log's now, and no
 * earlier than this much before the checkpoint was signed. The time is what a monitor reads as "this witness had
 * seen the checkpoint by then"; a witness's clock that is further off is refused as a bad answer (`invalid`).
 */
export const COSIGNATURE_TIME_SKEW_S = 300;

/**
 * P213's rule on a cosignature's stated time (Unix seconds): no earlier than the skew before the checkpoint was
 * signed, no later than the skew after the log's clock when the line arrived. Publication applies it to stored
 * lines too, with their `stored_at` as the arrival (P242): a line kept before P213 is held to the same window.
 * The stated time is never turned into a Date (up to 2^53 s would throw).
 */
export function cosignatureTimeFits(statedS: number, signedAtMs: number, arrivedMs: number): boolean {
  const stated = statedS * 1000;
  const skewMs = COSIGNATURE_TIME_SKEW_S * 1000;
  return stated >= signedAtMs - skewMs && stated <= arrivedMs + skewMs;
}

interface WitnessingLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface WitnessingOptions {
  readonly repository: LogRepository;
  readonly cosignatures: LogCosignatureRepository;
  readonly nodes: NodeCache;
  readonly witnesses: readonly WitnessEndpoint[];
  readonly quorum: number;
  readonly timeoutMs: number;
  readonly backend: CryptoBackend;
  readonly fetch: typeof fetch;
  readonly log: WitnessingLog;
  /** The log's clock: a cosignature's time is bounded by it (P213). */
  readonly clock: () => Date;
  /**
   * Backoff of a witness that is down (P391): after its n-th failed ask in a row it is asked again no sooner than
   * `retryBaseMs · 2^(n−1)`, at most `retryMaxMs`, later; a warn line when it goes down, one every
   * `downLogIntervalMs` while it stays down, an info line when it answers again.
   */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  readonly downLogIntervalMs?: number;
  readonly onOutcome?: (witness: WitnessEndpoint, outcome: WitnessOutcome) => void;
  readonly onPublished?: (checkpoint: LogCheckpointRecord) => void;
}

/** Defaults of the backoff (P391), overridden by LOG_WITNESS_RETRY_MAX_MS and LOG_WITNESS_DOWN_LOG_INTERVAL_MS. */
export const WITNESS_RETRY_BASE_MS = 1000;
export const WITNESS_RETRY_MAX_MS = 300_000;
export const WITNESS_DOWN_LOG_INTERVAL_MS = 600_000;

/** A witness whose last ask failed (timeout, unreachable, 5xx, unreadable answer): when to ask again and tell. */
interface DownWitness {
  failures: number;
  readonly downSinceMs: number;
  nextAskMs: number;
  lastNoticeMs: number;
  /** When this replica's last ask failed. */
  lastFailureMs: number;
  /**
   * P464: another replica stored a cosignature of the witness after this replica's last failed ask: the witness is up
   * (the gauges say so), while this replica keeps its own schedule, as its own path to the witness may be what fails.
   */
  seenElsewhere: boolean;
}

export class Witnessing {
  readonly #options: WitnessingOptions;
  #published: LogCheckpointRecord | undefined;
  /** Per witness id, the largest size known to be cosigned (stored); saves a query per round. */
  readonly #cosigned = new Map<string, number>();
  /** Older quorum-cosigned checkpoints served by `?tree_size=` (a late witness's line may be missing: still k of n). */
  readonly #older = new Map<number, LogCheckpointRecord>();
  /** Per witness id, its backoff while it is down (P391); absent: it answered its last ask, or was never asked. */
  readonly #down = new Map<string, DownWitness>();
  /** Per witness id and kind of bad answer, when its line was last written and how many repeats since (P395). */
  readonly #faults = new Map<string, { lastLoggedMs: number; repeats: number }>();

  constructor(options: WitnessingOptions) {
    this.#options = options;
  }

  /** The newest checkpoint with a verified quorum of cosignatures, as one note; undefined before the first. */
  get published(): LogCheckpointRecord | undefined {
    return this.#published;
  }

  /**
   * The checkpoint of `size` as `?tree_size=` serves it (P390): the published one, or an older size whose stored
   * cosignature lines still verify to the quorum, with those lines. Undefined for a size past the published one
   * or one the quorum did not cosign: the log's own lines alone are never served on a witnessed log.
   */
  async cosignedCheckpoint(size: number): Promise<LogCheckpointRecord | undefined> {
    const published = this.#published;
    if (published === undefined || size > published.size) return undefined;
    if (size === published.size) return published;
    const kept = this.#older.get(size);
    if (kept !== undefined) return kept;
    // Quiet: a client asking for sizes must not write the log's warn lines.
    const note = await this.#cosignedNote(size, true);
    if (note !== undefined) {
      if (this.#older.size >= OLDER_CACHE_ENTRIES) this.#older.clear();
      this.#older.set(size, note);
    }
    return note;
  }

  /**
   * Whether the stored cosignatures of `size` verify to the quorum over the log's checkpoint of that size, each line
   * as publication checks it (P200, P242, P523). P461's sweep asks it of every root anchor (P543): a stored row is
   * no cosignature until it verifies.
   */
  async quorumCosigned(size: number): Promise<boolean> {
    return (await this.#cosignedNote(size, true)) !== undefined;
  }

  /** Whether `witness` answered its last ask (1) or is down (0): proto_log_witness_up (P391). */
  isUp(witness: WitnessEndpoint): boolean {
    const down = this.#down.get(witness.id);
    return down === undefined || down.seenElsewhere;
  }

  /** Failed asks in a row of a witness that is down, 0 when it is up: proto_log_witness_consecutive_failures. */
  consecutiveFailures(witness: WitnessEndpoint): number {
    const down = this.#down.get(witness.id);
    return down === undefined || down.seenElsewhere ? 0 : down.failures;
  }

  /** The largest size each witness is known to have cosigned (metrics). */
  cosignedSize(witness: WitnessEndpoint): number | undefined {
    return this.#cosigned.get(witness.id);
  }

  /**
   * Submits `target` to every witness that has not cosigned it yet (in parallel; also after the quorum is
   * reached, so a witness that was down catches up), then republishes when there may be more to publish.
   */
  async round(target: LogCheckpointRecord): Promise<void> {
    const stored = await Promise.all(
      this.#options.witnesses.map((witness) => this.#witness(witness, target)),
    );
    if (stored.includes(true) || (this.#published?.size ?? -1) < target.size) await this.refresh();
  }

  /** Reloads the published checkpoint from the store (at start, and after each round: replicas share it). */
  async refresh(): Promise<void> {
    const { cosignatures, witnesses, quorum } = this.#options;
    const sizes = await cosignatures.quorumSizes(
      witnesses.map((w) => w.id),
      quorum,
      PUBLISH_CANDIDATES,
    );
    for (const size of sizes) {
      // Never back to an older checkpoint; the same one again only with more cosignature lines.
      if (this.#published !== undefined && size < this.#published.size) return;
      const note = await this.#cosignedNote(size);
      if (note === undefined) continue;
      if (note.note === this.#published?.note) return;
      this.#published = note;
      this.#options.onPublished?.(note);
      this.#options.log.info({ tree_size: size }, 'published witness-cosigned checkpoint');
      return;
    }
  }

  /** The checkpoint of `size` with its stored cosignatures, if they still verify to a quorum. */
  async #cosignedNote(size: number, quiet = false): Promise<LogCheckpointRecord | undefined> {
    const { repository, cosignatures, witnesses, quorum, backend } = this.#options;
    const checkpoint = await repository.checkpoint(size);
    if (checkpoint === undefined) return undefined;
    const stored = new Map((await cosignatures.forSize(size)).map((row) => [row.witness, row]));
    // Configured order, so every replica publishes the same bytes.
    const lines = witnesses.flatMap((w) => {
      const row = stored.get(w.id);
      if (row === undefined) return [];
      const fault = this.#leftOutBecause(w, checkpoint, row);
      if (fault === undefined) return [row.line];
      if (!quiet) this.#options.log.warn({ tree_size: size, witness: w.id, ...fault.detail }, fault.message);
      return [];
    });
    const note = checkpoint.note + lines.join('');
    const verified = checkWitnessQuorum(note, { witnesses: witnesses.map((w) => w.key), quorum }, backend);
    if (!verified.ok) {
      if (quiet) return undefined;
      this.#options.log.warn(
        { tree_size: size, reason: verified.error.message },
        'stored witness cosignatures do not verify; not published',
      );
      return undefined;
    }
    return { ...checkpoint, note };
  }

  /**
   * Why publication leaves this stored line out of the checkpoint's note, or undefined when it carries it. Each line
   * is checked alone: one bad line (stored before P200) would otherwise fail the whole note, and one faulty witness
   * stop a k-of-n log. The round asks the same question, so a line left out is never taken as cosigned (P306).
   */
  #leftOutBecause(
    witness: WitnessEndpoint,
    checkpoint: LogCheckpointRecord,
    row: LogCosignatureRecord,
  ): { readonly message: string; readonly detail: object } | undefined {
    const alone = verifyCosignatures(checkpoint.note + row.line, [witness.key], this.#options.backend);
    if (!alone.ok || alone.value.length !== 1) {
      return { message: 'stored cosignature does not verify over this checkpoint; left out', detail: {} };
    }
    // The time rule of the answer, on a line stored before P213 too (P242); an unreadable time fits nothing.
    const statedS = alone.value[0]?.timestamp ?? 0;
    const signedAtMs = dateTimeInstant(checkpoint.signedAt, 'earliest');
    if (cosignatureTimeFits(statedS, signedAtMs, dateTimeInstant(row.storedAt, 'latest'))) return undefined;
    return {
      message: `stored cosignature time is more than ${COSIGNATURE_TIME_SKEW_S} s off the log's clock; left out`,
      detail: { stated_unix_s: statedS, stored_at: row.storedAt },
    };
  }

  /**
   * Whether `witness` has a line for `target` that publication would carry, else the line it leaves out (if any).
   * A size counted as cosigned once any line was stored for it (P306): a line left out then kept the witness from
   * being asked again until the log grew, and a 2-of-2 log published nothing meanwhile.
   */
  async #storedFor(
    witness: WitnessEndpoint,
    target: LogCheckpointRecord | undefined,
    size: number,
  ): Promise<{ readonly carried: boolean; readonly leftOut?: string }> {
    const row = (await this.#options.cosignatures.forSize(size)).find((r) => r.witness === witness.id);
    if (row === undefined) return { carried: false };
    // A line for a size this log never signed cosigns nothing.
    if (target === undefined) return { carried: false };
    const fault = this.#leftOutBecause(witness, target, row);
    return fault === undefined ? { carried: true } : { carried: false, leftOut: row.line };
  }

  /** Asks one witness about `target` unless it cosigned it already; true when a new cosignature was stored. */
  async #witness(witness: WitnessEndpoint, target: LogCheckpointRecord): Promise<boolean> {
    const { cosignatures } = this.#options;
    try {
      const cached = this.#cosigned.get(witness.id);
      if (cached !== undefined && cached >= target.size) return false;
      // Down and not due yet (P391): no ask, no line; a round only checks the clock.
      const down = this.#down.get(witness.id);
      if (down !== undefined && this.#options.clock().getTime() < down.nextAskMs) return false;
      const known = await cosignatures.lastCosignedSize(witness.id);
      // A larger size is a replica's newer round; this size counts only when publication carries its line (P306).
      let leftOut: string | undefined;
      if (known !== undefined && known >= target.size) {
        // A larger size's line is checked over that size's checkpoint too: a row no replica's ask stored (written into
        // the database, or at a size never signed) would otherwise mark the witness up and stop its asks (P523).
        let size = known;
        let stored = await this.#storedFor(
          witness,
          known > target.size ? await this.#options.repository.checkpoint(known) : target,
          known,
        );
        if (!stored.carried && known > target.size) {
          size = target.size;
          stored = await this.#storedFor(witness, target, size);
        }
        if (stored.carried) {
          this.#cosigned.set(witness.id, size);
          if (down !== undefined) await this.#cosignedElsewhere(witness, size, down);
          return false;
        }
        leftOut = stored.leftOut;
        this.#fault(
          witness,
          'left-out',
          { witness: witness.id, tree_size: target.size },
          'stored cosignature left out; asking again',
        );
      }
      let answer = await this.#submit(witness, known ?? 0, target);
      if (answer.kind === 'conflict' && answer.knownSize <= target.size) {
        // The witness holds another size for us (its state or ours was lost, or a replica got there first):
        // prove consistency from what it holds and try once more (c2sp.org/tlog-witness).
        answer = await this.#submit(witness, answer.knownSize, target);
      }
      // It answered (a refusal too: LogWitnessRefusing watches those): reachable again.
      this.#answered(witness);
      if (answer.kind === 'conflict') {
        this.#outcome(witness, 'refused');
        this.#fault(
          witness,
          'conflict',
          { witness: witness.id, tree_size: target.size, witness_size: answer.knownSize },
          'witness holds a size this checkpoint cannot be proved from',
        );
        return false;
      }
      if (answer.kind === 'refused') {
        this.#outcome(witness, 'refused');
        this.#fault(
          witness,
          `refused ${answer.status}`,
          { witness: witness.id, tree_size: target.size, status: answer.status, reason: answer.reason },
          'witness refused the checkpoint',
        );
        return false;
      }
      const line = this.#verifiedLine(witness, target, answer.body);
      if (line === undefined) {
        this.#outcome(witness, 'invalid');
        this.#fault(
          witness,
          'invalid',
          { witness: witness.id, tree_size: target.size },
          'witness answer is not a valid cosignature',
        );
        return false;
      }
      const stored =
        leftOut === undefined
          ? await cosignatures.save(target.size, witness.id, line)
          : await cosignatures.replace(target.size, witness.id, leftOut, line);
      this.#cosigned.set(witness.id, target.size);
      this.#outcome(witness, 'cosigned');
      this.#cosignsAgain(witness);
      return stored;
    } catch (error) {
      if (!(error instanceof WitnessUnavailableError)) throw error;
      this.#outcome(witness, error.outcome);
      this.#notReached(witness, target, error);
      return false;
    }
  }

  /** A failed ask (P391): the next one after the backoff; a warn line on the change to down, then a reminder. */
  #notReached(witness: WitnessEndpoint, target: LogCheckpointRecord, error: WitnessUnavailableError): void {
    const options = this.#options;
    const now = options.clock().getTime();
    const base = options.retryBaseMs ?? WITNESS_RETRY_BASE_MS;
    const max = options.retryMaxMs ?? WITNESS_RETRY_MAX_MS;
    let down = this.#down.get(witness.id);
    const first = down === undefined;
    if (down === undefined) {
      down = {
        failures: 0,
        downSinceMs: now,
        nextAskMs: now,
        lastNoticeMs: now,
        lastFailureMs: now,
        seenElsewhere: false,
      };
      this.#down.set(witness.id, down);
    }
    down.failures += 1;
    down.lastFailureMs = now;
    down.seenElsewhere = false;
    const retryInMs = Math.min(max, base * 2 ** Math.min(down.failures - 1, 30));
    down.nextAskMs = now + retryInMs;
    const detail = {
      witness: witness.id,
      tree_size: target.size,
      outcome: error.outcome,
      err: error,
      failures: down.failures,
      retry_in_ms: retryInMs,
    };
    if (first) {
      options.log.warn(detail, 'witness is down; asked again with backoff');
    } else if (now - down.lastNoticeMs >= (options.downLogIntervalMs ?? WITNESS_DOWN_LOG_INTERVAL_MS)) {
      down.lastNoticeMs = now;
      options.log.warn(
        { ...detail, down_for_s: Math.round((now - down.downSinceMs) / 1000) },
        'witness is still down',
      );
    }
  }

  /**
   * A bad answer of one kind from a witness that is reachable (P395): the warn line the first time, then once per
   * `downLogIntervalMs` with the repeats since; the ask and its count go on every round (LogWitnessRefusing).
   */
  #fault(witness: WitnessEndpoint, kind: string, detail: object, message: string): void {
    const now = this.#options.clock().getTime();
    const key = `${witness.id}\n${kind}`;
    const seen = this.#faults.get(key);
    if (seen === undefined) {
      this.#faults.set(key, { lastLoggedMs: now, repeats: 0 });
      this.#options.log.warn(detail, message);
      return;
    }
    seen.repeats += 1;
    if (now - seen.lastLoggedMs < (this.#options.downLogIntervalMs ?? WITNESS_DOWN_LOG_INTERVAL_MS)) return;
    this.#options.log.warn({ ...detail, repeats_since_last_line: seen.repeats }, message);
    seen.lastLoggedMs = now;
    seen.repeats = 0;
  }

  /** A valid cosignature from a witness whose answers were faulty: one info line, and faults are news again. */
  #cosignsAgain(witness: WitnessEndpoint): void {
    const prefix = `${witness.id}\n`;
    const kinds = [...this.#faults.keys()].filter((key) => key.startsWith(prefix));
    if (kinds.length === 0) return;
    for (const key of kinds) this.#faults.delete(key);
    this.#options.log.info(
      { witness: witness.id, after: kinds.map((key) => key.slice(prefix.length)) },
      'witness cosigns again',
    );
  }

  /** An answer from a witness that was down: one info line, and it is asked every round again. */
  #answered(witness: WitnessEndpoint): void {
    const down = this.#down.get(witness.id);
    if (down === undefined) return;
    this.#down.delete(witness.id);
    // Already told, from another replica's cosignature (P464).
    if (down.seenElsewhere) return;
    this.#options.log.info(this.#backUpDetail(witness, down, undefined), 'witness is back up');
  }

  #backUpDetail(witness: WitnessEndpoint, down: DownWitness, seen: string | undefined): object {
    const now = this.#options.clock().getTime();
    return {
      witness: witness.id,
      failures: down.failures,
      down_for_s: Math.round((now - down.downSinceMs) / 1000),
      ...(seen === undefined ? {} : { seen }),
    };
  }

  /**
   * P464: the backoff is this replica's (P391), but the witness's cosignatures are shared through the store. A line of
   * `witness` stored after this replica's last failed ask (by another replica, whose ask got there first) shows the
   * witness answering: without it, this replica kept `proto_log_witness_up` at 0 for as long as the other replica
   * asked first. The witness reads up here from then on (one info line), but this replica's own schedule and failure
   * count stay until its own ask answers: its own path may be what fails, and forgetting its backoff would have it ask,
   * fail and write a down line at each new checkpoint. A line stored before that failure says nothing of the witness now.
   */
  async #cosignedElsewhere(witness: WitnessEndpoint, size: number, down: DownWitness): Promise<void> {
    if (down.seenElsewhere) return;
    const row = (await this.#options.cosignatures.forSize(size)).find((r) => r.witness === witness.id);
    if (row === undefined || dateTimeInstant(row.storedAt, 'latest') < down.lastFailureMs) return;
    down.seenElsewhere = true;
    this.#options.log.info(
      this.#backUpDetail(witness, down, 'cosignature stored by another replica'),
      'witness is back up',
    );
  }

  async #submit(
    witness: WitnessEndpoint,
    oldSize: number,
    target: LogCheckpointRecord,
  ): Promise<WitnessAnswer> {
    const proof =
      oldSize === 0 || oldSize >= target.size
        ? []
        : (await consistencyAnswer(this.#options.nodes, oldSize, target.size)).proof;
    return submitToWitness(
      witness,
      { oldSize, proof, note: target.note },
      { timeoutMs: this.#options.timeoutMs, fetch: this.#options.fetch },
    );
  }

  /**
   * The one cosignature line of this witness's key in its answer, verified over this checkpoint's text;
   * undefined when the answer has none, or one that does not verify (wrong key, wrong checkpoint).
   */
  #verifiedLine(witness: WitnessEndpoint, target: LogCheckpointRecord, body: string): string | undefined {
    const answer = body.endsWith('\n') ? body : `${body}\n`;
    if (!answer.startsWith('— ')) return undefined;
    const candidate = target.note + answer;
    // A blank line in the answer moves the note's split: its lines would then be checked over the log's note plus
    // the witness's own lines, not over the checkpoint text (P200). The text must be the one the log signed.
    const parsed = parseSignedNote(candidate);
    const sent = parseSignedNote(target.note);
    if (!parsed.ok || !sent.ok || parsed.value.text !== sent.value.text) return undefined;
    const verified = verifyCosignatures(candidate, [witness.key], this.#options.backend);
    if (!verified.ok || verified.value.length !== 1) return undefined;
    // Its time (cosignature/v1, seconds): not before the checkpoint was signed, nor after now, beyond the skew.
    const statedS = verified.value[0]?.timestamp ?? 0;
    const signedAtMs = dateTimeInstant(target.signedAt, 'earliest');
    if (!cosignatureTimeFits(statedS, signedAtMs, this.#options.clock().getTime())) {
      this.#fault(
        witness,
        'time',
        { witness: witness.id, tree_size: target.size, stated_unix_s: statedS },
        `witness cosignature time is more than ${COSIGNATURE_TIME_SKEW_S} s off the log's clock`,
      );
      return undefined;
    }
    const mine = parsed.value.signatures.find(
      (s) => s.keyName === witness.key.name && s.keyId === witness.key.keyId,
    );
    return mine === undefined ? undefined : formatSignatureLine(mine);
  }

  #outcome(witness: WitnessEndpoint, outcome: WitnessOutcome): void {
    this.#options.onOutcome?.(witness, outcome);
  }
}
