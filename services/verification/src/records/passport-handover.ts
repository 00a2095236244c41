// P229: a verified bundle's passport keys (~10 KB for an elevated bundle: ML-DSA-65 public keys) were cloned
// from the verification thread to the main thread on every verified bundle, though the key directory's feeder
// applies one passport at most once an hour (P174) and answers every other hand-over with one Map look-up. So a
// thread hands a passport over in full once per refresh period and sends only its evidence in between; the
// feeder then answers from that look-up, as before. The refresh period bounds how late the directory learns of
// a passport whose full hand-over it could not apply (a failed write, a verdict the main thread's revocation
// check turned false, the feeder's bounded set cleared): at most one period, after which the next verified
// bundle with those keys hands them over again.

/** How often a thread hands a passport it keeps seeing over in full (ms). Far below the feeder's hour. */
export const DEFAULT_PASSPORT_REFRESH_MS = 60_000;

export class PassportHandover {
  readonly #handedAt = new Map<string, number>();
  readonly #refreshMs: number;
  readonly #limit: number;

  constructor(refreshMs = DEFAULT_PASSPORT_REFRESH_MS, limit = 10_000) {
    this.#refreshMs = refreshMs;
    this.#limit = limit;
  }

  /** True when the passport with this evidence was handed over in full within the refresh period. */
  recent(evidence: string, now: number): boolean {
    const at = this.#handedAt.get(evidence);
    return at !== undefined && now - at < this.#refreshMs && now >= at;
  }

  /** The passport with this evidence goes to the main thread in full now. */
  handedOver(evidence: string, now: number): void {
    // Clearing at the bound costs one more full hand-over per passport, never a lost binding.
    if (this.#handedAt.size >= this.#limit && !this.#handedAt.has(evidence)) this.#handedAt.clear();
    this.#handedAt.set(evidence, now);
  }
}
