// P123: the key directory's evidence for a passport is the hash of a verified bundle carrying it, and a
// whole-bundle hash (100–400 KB of canonical text) is work the verdict never needs. So a worker thread takes it
// once per passport: the first verified bundle's hash stands as the evidence of every later bundle with the same
// passport keys (the store keeps a binding's first evidence anyway, and the feeder applies a passport once).
import type { PassportKeysDraft } from './bundle-key-bindings.ts';

export class PassportEvidence {
  readonly #known = new Map<string, string>();
  readonly #limit: number;

  constructor(limit = 10_000) {
    this.#limit = limit;
  }

  /** The hash of a verified bundle with these passport keys, when this thread has seen one. */
  of(keys: PassportKeysDraft): string | undefined {
    return this.#known.get(keys.identity);
  }

  /** `bundleHash` is that of a bundle with these keys whose verdict was true. */
  remember(keys: PassportKeysDraft, bundleHash: string): void {
    if (this.#known.has(keys.identity)) return;
    // Clearing at the bound (as the feeder's set does) costs one more hash per passport, never a wrong answer.
    if (this.#known.size >= this.#limit) this.#known.clear();
    this.#known.set(keys.identity, bundleHash);
  }
}
