// Exact request bytes → what a cache hit needs beside the analysis (its cache key, the evidence the request
// carries, as the worker read it). The cache is keyed by the bytes (P235): a body is answered from the
// analysis cache without being parsed on the main thread, one native SHA-256 instead of work that grows
// with the body. Issue 14 item 1; D20 (only the analysis is cached, never a verdict).
import { hash } from 'node:crypto';
import type { SuppliedEvidence } from './bundle-subject.ts';
import { retainedBytes } from './retained-bytes.ts';

export interface KnownBody {
  readonly cacheKey: string;
  readonly evidence: SuppliedEvidence | undefined;
}

export class BodyMemo {
  readonly #entries = new Map<string, { known: KnownBody; bytes: number }>();
  readonly #max: number;
  readonly #maxBytes: number;
  #bytes = 0;

  /**
   * `maxBytes` bounds what the entries hold: the evidence a request carries (an anchor receipt, an
   * attestation) is the sender's to size, so an entry count alone would let distinct bodies pin gigabytes.
   */
  constructor(maxEntries: number, maxBytes = Number.POSITIVE_INFINITY) {
    this.#max = maxEntries;
    this.#maxBytes = maxBytes;
  }

  /** The digest names the format too: the same bytes read as JSON and as CBOR are different requests. */
  static digest(format: 'json' | 'cbor', bytes: Uint8Array): string {
    return `${format}:${hash('sha256', bytes, 'base64')}`;
  }

  /** What an entry holds, in the analysis cache's unit (the memo shares its byte bound). */
  static bytesOf(digest: string, known: KnownBody): number {
    return retainedBytes(digest) + retainedBytes(known);
  }

  get bytes(): number {
    return this.#bytes;
  }

  get(digest: string): KnownBody | undefined {
    return this.#entries.get(digest)?.known;
  }

  set(digest: string, known: KnownBody): void {
    if (this.#max <= 0) return;
    this.#remove(digest);
    const bytes = BodyMemo.bytesOf(digest, known);
    if (bytes > this.#maxBytes) return;
    this.#entries.set(digest, { known, bytes });
    this.#bytes += bytes;
    // Insertion order: the first entry is the oldest (a body seen again is re-inserted above).
    while (this.#entries.size > this.#max || this.#bytes > this.#maxBytes) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#remove(oldest);
    }
  }

  #remove(digest: string): void {
    const entry = this.#entries.get(digest);
    if (entry === undefined) return;
    this.#entries.delete(digest);
    this.#bytes -= entry.bytes;
  }
}
