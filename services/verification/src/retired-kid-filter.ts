// P410: P282's retired-key warning at the cost of a hash probe. Every kid the key directory has retired (for any
// subject) is set in a fixed Bloom filter held in shared memory, which the main thread fills and the verification
// workers read: a bundle none of whose signing kids is set keeps the worker-written answer and asks the store
// nothing; only a bundle with a set kid (retired, or a false positive) gets P282's exact store look-up.
import type { RetiredPosition, Store } from '@proto/store';

/**
 * The default size, 2^20 bits (128 KiB): with 100 000 retired kids about 1 % of other kids hit falsely (one store
 * query each). RETIRED_KID_FILTER_BITS_LOG2 sets another (P470); the readers take the size from the buffer.
 */
export const DEFAULT_FILTER_BITS_LOG2 = 20;
const HASHES = 4;
/** How many retirements one refresh reads a page. */
const PAGE = 1_000;

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

/** The filter's bit positions of `kid`; `mask` is its size in bits less one (a power of two). */
function* positions(kid: string, mask: number): Generator<number> {
  const [a, b] = hashes(kid);
  for (let i = 0; i < HASHES; i++) yield ((a + Math.imul(i, b)) >>> 0) & mask;
}

/** Whether any of `kids` may be retired, read from the shared filter (in a worker or on the main thread). */
export function mayBeRetired(filter: SharedArrayBuffer, kids: readonly string[]): boolean {
  const words = new Int32Array(filter);
  const mask = filter.byteLength * 8 - 1;
  return kids.some((kid) => {
    for (const bit of positions(kid, mask)) {
      if ((Atomics.load(words, bit >>> 5) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  });
}

/**
 * The set of retired kids of one process: filled at start, refreshed by retirement number (P472), added to on its
 * own retirements (P469). Until its first complete fill every bit is set (P471): every verified V2 bundle then gets
 * P282's exact look-up, as before P410, rather than none; the fill is built aside and copied in word by word, so no
 * bit a retired kid needs is ever clear meanwhile.
 */
export class RetiredKidFilter {
  readonly shared: SharedArrayBuffer;
  readonly #words: Int32Array;
  readonly #mask: number;
  readonly #store: Store;
  /** The first fill's bits until it is copied into `shared`; undefined once filled. */
  #pending: Int32Array | undefined;
  #last: RetiredPosition | null = null;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(store: Store, bitsLog2 = DEFAULT_FILTER_BITS_LOG2) {
    const bits = 2 ** bitsLog2;
    this.shared = new SharedArrayBuffer(bits / 8);
    this.#words = new Int32Array(this.shared);
    this.#mask = bits - 1;
    this.#pending = new Int32Array(bits / 32);
    this.#store = store;
    this.#words.fill(-1);
  }

  /** Whether the first complete fill is done (readiness, P471). */
  get filled(): boolean {
    return this.#pending === undefined;
  }

  add(kid: string): void {
    for (const bit of positions(kid, this.#mask)) {
      Atomics.or(this.#words, bit >>> 5, 1 << (bit & 31));
      if (this.#pending !== undefined)
        this.#pending[bit >>> 5] = (this.#pending[bit >>> 5] ?? 0) | (1 << (bit & 31));
    }
  }

  has(kids: readonly string[]): boolean {
    return mayBeRetired(this.shared, kids);
  }

  /**
   * The share of the filter's bits that are set (P470): a bundle whose kids are not retired is looked up in the store
   * with about this to the fourth power's chance (4 hashes). 1 until the first fill.
   */
  fillRatio(): number {
    let set = 0;
    for (let i = 0; i < this.#words.length; i++) {
      let w = Atomics.load(this.#words, i) >>> 0;
      while (w !== 0) {
        w &= w - 1;
        set++;
      }
    }
    return set / (this.#mask + 1);
  }

  /** Reads the retirements after the last one read; one at a time, a call meanwhile runs after. */
  refresh(): Promise<void> {
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          await this.#readAfter();
        } while (this.#again);
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  async #readAfter(): Promise<void> {
    // Retirements an older replica wrote without a number (rolling upgrade) get one now, after what was read.
    await this.#store.keys.numberUnnumberedRetirements();
    for (;;) {
      const page = await this.#store.keys.retiredSince(this.#last, PAGE);
      for (const row of page) this.add(row.kid);
      // Advanced page by page: a failure part-way resumes after what was read.
      this.#last = page[page.length - 1] ?? this.#last;
      if (page.length < PAGE) break;
    }
    const pending = this.#pending;
    if (pending === undefined) return;
    // Word by word from all ones to the filled value: each word only loses bits no retired kid needs.
    for (let i = 0; i < pending.length; i++) Atomics.store(this.#words, i, pending[i] ?? 0);
    this.#pending = undefined;
  }
}
