// The verification cache: time-independent analyses only (finalize runs on every hit), LRU-bounded by
// entries and by bytes (P73), TTL by resolved tier, evictable by signer kid and by agent id. PROTOCOL §8.3 (TTLs, invalidateByKid).
import { createHash } from 'node:crypto';
import { type BundleAnalysis, type SecurityTier, TIER_PROFILES } from '@proto/core';
import { retainedBytes } from './retained-bytes.ts';

interface Entry {
  readonly analysis: BundleAnalysis;
  readonly expiresAt: number;
  /** analysisBytes() of the analysis plus `retained`, counted against the cache's byte bound. */
  bytes: number;
  /**
   * Bytes held alongside the analysis until release(): the passport keys a verdict has yet to give the key
   * directory (P81). Counted, because a bundle's signer decides their size and a false verdict never
   * stores them.
   */
  retained: number;
}

/**
 * What an analysis is counted as against VERIFICATION_CACHE_MAX_BYTES: retainedBytes() of it and its key.
 * Measured heap per entry is 0.6–2× this (P73): close enough to bound an analysis an attacker inflates
 * (long findings, many signer kids) where an entry count alone would not.
 */
export function analysisBytes(key: string, analysis: BundleAnalysis): number {
  return retainedBytes(key) + retainedBytes(analysis);
}

/** TTL of an analysis: its resolved tier's (PROTOCOL §6.7: 300/120/30/10 s); V1 counts as routine. */
export function cacheTtlMs(analysis: BundleAnalysis): number {
  const tier: SecurityTier = analysis.resolvedTier ?? 'routine';
  return TIER_PROFILES[tier].cacheTtlSeconds * 1000;
}

/**
 * Cache key = SHA-256 over the verifier's effective settings and the body's digest (its wire format and the
 * SHA-256 of its exact bytes: `BodyMemo.digest`). Two requests share a key only when the verifier is given the
 * same bytes to read, in the same format, under the same settings, so nothing a parser or a canonical form
 * could confuse (`Infinity`, duplicate keys, lone surrogates, uncovered members, evidence) can pass for
 * something else (issue 12 row b). The main thread hashes the bytes natively and parses nothing; the same
 * bundle sent as other bytes is only a miss (P235). `settingsText` is computed once per verifier.
 */
export function verificationCacheKey(settingsText: string, bodyDigest: string): string {
  // A digest is `format:base64`, which holds no newline: the parts cannot run into each other.
  return createHash('sha256').update(settingsText).update('\n').update(bodyDigest).digest('hex');
}

export class VerificationCache {
  readonly maxEntries: number;
  readonly maxBytes: number;
  readonly #entries = new Map<string, Entry>();
  readonly #byKid = new Map<string, Set<string>>();
  readonly #byAgent = new Map<string, Set<string>>();
  readonly #now: () => number;
  #bytes = 0;

  constructor(maxEntries: number, now: () => number = Date.now, maxBytes = Number.POSITIVE_INFINITY) {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.#now = now;
  }

  /** Sum of analysisBytes() over the entries held. */
  get bytes(): number {
    return this.#bytes;
  }

  get enabled(): boolean {
    return this.maxEntries > 0;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The live analysis under `key` (refreshed as most recently used), or undefined. */
  get(key: string): BundleAnalysis | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#delete(key);
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.analysis;
  }

  /** `retainedBytes`: what the caller keeps alive with this analysis until it calls release(). */
  set(key: string, analysis: BundleAnalysis, retainedBytes = 0): void {
    if (!this.enabled) return;
    if (this.#entries.has(key)) this.#delete(key);
    const bytes = analysisBytes(key, analysis) + retainedBytes;
    // One analysis larger than the whole bound would only empty the cache to be dropped itself.
    if (bytes > this.maxBytes) return;
    this.#entries.set(key, {
      analysis,
      expiresAt: this.#now() + cacheTtlMs(analysis),
      bytes,
      retained: retainedBytes,
    });
    this.#bytes += bytes;
    for (const kid of analysis.signerKids) this.#index(this.#byKid, kid, key);
    if (analysis.agentId !== undefined) this.#index(this.#byAgent, analysis.agentId, key);
    while (this.#entries.size > this.maxEntries || this.#bytes > this.maxBytes) {
      // Map iteration order is insertion order and get() re-inserts: the first key is the least recent.
      const oldest = this.#entries.keys().next().value as string;
      this.#delete(oldest);
    }
  }

  /** The caller no longer keeps anything alive with this analysis: its retained bytes stop counting. */
  release(key: string, analysis: BundleAnalysis): void {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.analysis !== analysis || entry.retained === 0) return;
    entry.bytes -= entry.retained;
    this.#bytes -= entry.retained;
    entry.retained = 0;
  }

  /** Evicts every analysis a key signed (revocation of a kid); returns how many. */
  invalidateKid(kid: string): number {
    return this.#invalidate(this.#byKid.get(kid));
  }

  /** Evicts every analysis of an agent (revocation of an agent); returns how many. */
  invalidateAgent(agentId: string): number {
    return this.#invalidate(this.#byAgent.get(agentId));
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
    this.#byKid.clear();
    this.#byAgent.clear();
  }

  #invalidate(keys: Set<string> | undefined): number {
    if (!keys) return 0;
    const victims = [...keys];
    for (const key of victims) this.#delete(key);
    return victims.length;
  }

  #index(index: Map<string, Set<string>>, id: string, key: string): void {
    const keys = index.get(id);
    if (keys) keys.add(key);
    else index.set(id, new Set([key]));
  }

  #unindex(index: Map<string, Set<string>>, id: string, key: string): void {
    const keys = index.get(id);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) index.delete(id);
  }

  #delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    for (const kid of entry.analysis.signerKids) this.#unindex(this.#byKid, kid, key);
    if (entry.analysis.agentId !== undefined) this.#unindex(this.#byAgent, entry.analysis.agentId, key);
  }
}
