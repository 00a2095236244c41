// Exact request bytes → what a cache hit needs from the parsed request (its cache key, the members no
// signature covers, the evidence it carries). A body sent again byte for byte is answered from the
// analysis cache without being parsed or canonicalised on the main thread: one native SHA-256 instead of
// work that grows with the body. Issue 14 item 1; D20 (only the analysis is cached, never a verdict).
import { hash } from 'node:crypto';
import type { SuppliedEvidence } from './bundle-subject.ts';

export interface KnownBody {
  readonly cacheKey: string;
  readonly uncoveredMembers: readonly string[];
  readonly evidence: SuppliedEvidence | undefined;
}

export class BodyMemo {
  readonly #entries = new Map<string, KnownBody>();
  readonly #max: number;

  constructor(maxEntries: number) {
    this.#max = maxEntries;
  }

  /** The digest names the format too: the same bytes read as JSON and as CBOR are different requests. */
  static digest(format: 'json' | 'cbor', bytes: Uint8Array): string {
    return `${format}:${hash('sha256', bytes, 'base64')}`;
  }

  get(digest: string): KnownBody | undefined {
    return this.#entries.get(digest);
  }

  set(digest: string, known: KnownBody): void {
    if (this.#max <= 0) return;
    this.#entries.delete(digest);
    this.#entries.set(digest, known);
    // Insertion order: the first entry is the oldest (a body seen again is re-inserted above).
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }
}
