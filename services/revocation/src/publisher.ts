// Issues the jurisdiction's signed revocation list: on every revocation, at start-up, and on a timer
// before next_update even when nothing changed. DECISIONS D20 (list_number monotonic, next_update).
import type { ProtocolProfile } from '@proto/core';
import type {
  EmergencyRevokeResult,
  IssuedRevocationList,
  ListBuilder,
  RevocationRepository,
  RevokeResult,
} from '@proto/store';
import { type RevocationList, signRevocationList } from './core.ts';
import type { SigningKey } from './keys.ts';

export interface PublisherOptions {
  readonly repository: RevocationRepository;
  readonly issuer: string;
  readonly jurisdiction: string;
  readonly key: SigningKey;
  readonly profile: ProtocolProfile;
  readonly validitySeconds: number;
  readonly clock: () => Date;
  readonly log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Called with every list this process issues (metrics). */
  readonly onIssued?: (list: IssuedRevocationList) => void;
  /** The current list after each timer round, whoever issued it (metrics: next_update; issue 16). */
  readonly onCurrent?: (list: IssuedRevocationList) => void;
  /** A timer round failed to make sure a current list exists (metrics: issue failures; issue 16). */
  readonly onFailure?: (error: unknown) => void;
}

/** Longest the timer sleeps before looking again (another replica may have issued meanwhile). */
const MAX_TIMER_MS = 60_000;
const MIN_TIMER_MS = 200;
const RETRY_AFTER_FAILURE_MS = 5_000;

export class ListPublisher {
  readonly #o: PublisherOptions;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: PublisherOptions) {
    this.#o = options;
  }

  /** Signs the list for a number and the current entries (runs inside the issuing transaction). */
  readonly build: ListBuilder = ({ listNumber, entries }) => {
    const issuedAt = this.#o.clock();
    const nextUpdate = new Date(issuedAt.getTime() + this.#o.validitySeconds * 1000);
    const signed = signRevocationList(
      {
        issuer: this.#o.issuer,
        jurisdiction: this.#o.jurisdiction,
        updated_at: issuedAt.toISOString(),
        list_number: listNumber,
        next_update: nextUpdate.toISOString(),
        entries: entries.map((e) => ({
          agent_id: e.agent_id,
          revoked_at: e.revoked_at,
          reason_hash: e.reason_hash,
        })),
      },
      this.#o.key.secretKey,
      { profile: this.#o.profile },
    );
    // A failure here is a bug or a bad key; throwing rolls the transaction back (no number used up).
    if (!signed.ok) throw new Error(`cannot sign revocation list ${listNumber}: ${signed.error.message}`);
    return {
      list_json: JSON.stringify(signed.value),
      issued_at: issuedAt.toISOString(),
      next_update: nextUpdate.toISOString(),
    };
  };

  /** The list currently served (the latest issued). */
  latest(): Promise<IssuedRevocationList | undefined> {
    return this.#o.repository.latestList(this.#o.jurisdiction);
  }

  async revoke(entry: { agent_id: string; revoked_at: string; reason_hash: string }): Promise<RevokeResult> {
    const result = await this.#o.repository.revoke(this.#o.jurisdiction, entry, this.build);
    if (result.status === 'created') this.#issued(result.list, 'revocation');
    return result;
  }

  /** Uses an agent's emergency token: the agent id and its kids enter the list, issued at once (§9.5). */
  async emergencyRevoke(request: {
    agent_id: string;
    token: string;
    revoked_at: string;
    reason_hash: string;
  }): Promise<EmergencyRevokeResult> {
    const result = await this.#o.repository.emergencyRevoke(this.#o.jurisdiction, request, this.build);
    if (result.status === 'revoked') this.#issued(result.list, 'emergency');
    return result;
  }

  /** When a list must be re-issued: half its validity has passed, or the issuer or key changed. */
  isDue(latest: IssuedRevocationList | undefined): boolean {
    if (latest === undefined) return true;
    const now = this.#o.clock().getTime();
    if (now >= this.#dueAt(latest)) return true;
    try {
      const list = JSON.parse(latest.list_json) as RevocationList;
      return (
        list.issuer !== this.#o.issuer ||
        list.signature?.public_key_b64 !== this.#o.key.publicKeyB64 ||
        Date.parse(list.next_update) - Date.parse(list.updated_at) > this.#o.validitySeconds * 1000
      );
    } catch {
      return true;
    }
  }

  /** Issues a new list when the latest one is due (checked under the lock, so replicas issue once). */
  async ensureCurrent(): Promise<IssuedRevocationList> {
    const result = await this.#o.repository.issueList(this.#o.jurisdiction, this.build, {
      onlyIf: (latest) => this.isDue(latest),
    });
    if (result.issued) {
      this.#issued(result.list, 'schedule');
      return result.list;
    }
    return result.latest as IssuedRevocationList;
  }

  /** Starts the re-issue timer (unref'd: it never keeps the process alive). */
  start(): void {
    this.#stopped = false;
    void this.#tick();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    let delay = RETRY_AFTER_FAILURE_MS;
    try {
      const latest = await this.ensureCurrent();
      this.#o.onCurrent?.(latest);
      delay = this.#dueAt(latest) - this.#o.clock().getTime();
    } catch (error) {
      this.#o.onFailure?.(error);
      this.#o.log.error({ err: error }, 'revocation list re-issue failed; retrying');
    }
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#tick(), Math.min(MAX_TIMER_MS, Math.max(MIN_TIMER_MS, delay)));
    this.#timer.unref();
  }

  #dueAt(list: IssuedRevocationList): number {
    const issued = Date.parse(list.issued_at);
    const next = Date.parse(list.next_update);
    return issued + (next - issued) / 2;
  }

  #issued(list: IssuedRevocationList, cause: 'revocation' | 'schedule' | 'emergency'): void {
    this.#o.onIssued?.(list);
    this.#o.log.info(
      { list_number: list.list_number, entries: list.entry_count, next_update: list.next_update, cause },
      'issued revocation list',
    );
  }
}
