// Push-back for POST /anchor: once a chain's unsent requests reach ANCHOR_MAX_BACKLOG new ones get 503 + Retry-After (E702).
// Issue 16 item 1 (intake above what the chain can take must not grow the backlog without bound); PROTOCOL E702.
import type { AnchorRepository } from '@proto/store';

export class BacklogGate {
  readonly #repo: AnchorRepository;
  readonly #max: number;
  readonly #ttlMs: number;
  readonly #cache = new Map<string, { count: number; at: number }>();

  /** `max` 0: no bound. The count is read from the store at most every `ttlMs` and counted up locally between. */
  constructor(repo: AnchorRepository, max: number, ttlMs = 250) {
    this.#repo = repo;
    this.#max = max;
    this.#ttlMs = ttlMs;
  }

  get max(): number {
    return this.#max;
  }

  /** true when the chain's backlog is at its bound. */
  async full(chain: string): Promise<boolean> {
    if (this.#max === 0) return false;
    let entry = this.#cache.get(chain);
    if (entry === undefined || Date.now() - entry.at > this.#ttlMs) {
      entry = { count: await this.#repo.backlog(chain), at: Date.now() };
      this.#cache.set(chain, entry);
    }
    return entry.count >= this.#max;
  }

  /** A new request was queued. */
  accepted(chain: string): void {
    const entry = this.#cache.get(chain);
    if (entry !== undefined) entry.count++;
  }

  /** A batch left the backlog (sent or failed): count again on the next request. */
  forget(chain: string): void {
    this.#cache.delete(chain);
  }
}
