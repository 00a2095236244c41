// P410: P282's retired-key warning at the cost of a hash probe. Every kid the key directory has retired (for any
// subject) is set in a fixed Bloom filter held in shared memory, which the main thread fills and the verification
// workers read: a bundle none of whose signing kids is set keeps the worker-written answer and asks the store
// nothing; only a bundle with a set kid (retired, or a false positive) gets P282's exact store look-up.
import type { RetiredPosition, Store } from '@proto/store';

/** 2^20 bits: 128 KiB, fixed; with 100 000 retired kids about 1 % of other kids hit falsely (one store query each). */
const BITS = 1 << 20;
const HASHES = 4;
/** How many retirements one refresh reads a page. */
const PAGE = 1_000;
/**
 * Each refresh reads again from this far before the newest retirement it saw: another replica's retirement dated
 * (by its clock) a little before that, or committed after a later-dated one, is still seen.
 */
export const RETIRED_LOOKBACK_MS = 60_000;

/** FNV-1a over the UTF-16 units, and a second seed: two 32-bit hashes for double hashing. */
function hashes(kid: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ kid.length;
  for (let i = 0; i < kid.length; i++) {
    const c = kid.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return [a >>> 0, (b | 1) >>> 0];
}

function* positions(kid: string): Generator<number> {
  const [a, b] = hashes(kid);
  for (let i = 0; i < HASHES; i++) yield ((a + Math.imul(i, b)) >>> 0) & (BITS - 1);
}

/** Whether any of `kids` may be retired, read from the shared filter (in a worker or on the main thread). */
export function mayBeRetired(filter: SharedArrayBuffer, kids: readonly string[]): boolean {
  const words = new Int32Array(filter);
  return kids.some((kid) => {
    for (const bit of positions(kid)) {
      if ((Atomics.load(words, bit >>> 5) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  });
}

/** The set of retired kids of one process: filled at start, refreshed by time, added to on its own retirements. */
export class RetiredKidFilter {
  readonly shared = new SharedArrayBuffer(BITS / 8);
  readonly #words = new Int32Array(this.shared);
  readonly #store: Store;
  #newest: RetiredPosition | null = null;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(store: Store) {
    this.#store = store;
  }

  add(kid: string): void {
    for (const bit of positions(kid)) Atomics.or(this.#words, bit >>> 5, 1 << (bit & 31));
  }

  has(kids: readonly string[]): boolean {
    return mayBeRetired(this.shared, kids);
  }

  /** Reads the retirements since the last refresh (less the look-back); one at a time, a call meanwhile runs after. */
  refresh(): Promise<void> {
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          await this.#readSince();
        } while (this.#again);
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  async #readSince(): Promise<void> {
    let after: RetiredPosition | null = null;
    if (this.#newest !== null) {
      const from = Date.parse(this.#newest.retiredAt) - RETIRED_LOOKBACK_MS;
      after = Number.isFinite(from)
        ? { retiredAt: new Date(from).toISOString(), kid: '', subject: '' }
        : null;
    }
    for (;;) {
      const page = await this.#store.keys.retiredSince(after, PAGE);
      for (const row of page) {
        this.add(row.kid);
        if (this.#newest === null || row.retiredAt > this.#newest.retiredAt) this.#newest = row;
      }
      if (page.length < PAGE) return;
      after = page[page.length - 1] ?? null;
    }
  }
}
