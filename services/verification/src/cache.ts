// The verification cache: time-independent analyses only (finalize runs on every hit), LRU-bounded,
// TTL by resolved tier, evictable by signer kid and by agent id. PROTOCOL §8.3 (TTLs, invalidateByKid).
import { createHash } from 'node:crypto';
import { type BundleAnalysis, type SecurityTier, TIER_PROFILES } from '@proto/core';

interface Entry {
  readonly analysis: BundleAnalysis;
  readonly expiresAt: number;
}

/** TTL of an analysis: its resolved tier's (PROTOCOL §6.7: 300/120/30/10 s); V1 counts as routine. */
export function cacheTtlMs(analysis: BundleAnalysis): number {
  const tier: SecurityTier = analysis.resolvedTier ?? 'routine';
  return TIER_PROFILES[tier].cacheTtlSeconds * 1000;
}

/** Deterministic JSON text: object keys sorted, so equal requests give equal keys. Undefined when too deep. */
export function stableJson(value: unknown, depth = 0): string | undefined {
  if (depth > 256) return undefined;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const item of value) {
      const text = stableJson(item, depth + 1);
      if (text === undefined) return undefined;
      parts.push(text);
    }
    return `[${parts.join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    const text = stableJson(record[key], depth + 1);
    if (text === undefined) return undefined;
    parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * Cache key = SHA-256 over (the verifier's effective settings and profile, the canonical request).
 * `settingsText` is computed once per verifier. Undefined when the request cannot be keyed.
 */
export function verificationCacheKey(settingsText: string, request: unknown): string | undefined {
  const text = stableJson(request);
  if (text === undefined) return undefined;
  return createHash('sha256').update(settingsText).update('\n').update(text).digest('hex');
}

export class VerificationCache {
  readonly maxEntries: number;
  readonly #entries = new Map<string, Entry>();
  readonly #byKid = new Map<string, Set<string>>();
  readonly #byAgent = new Map<string, Set<string>>();
  readonly #now: () => number;

  constructor(maxEntries: number, now: () => number = Date.now) {
    this.maxEntries = maxEntries;
    this.#now = now;
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

  set(key: string, analysis: BundleAnalysis): void {
    if (!this.enabled) return;
    if (this.#entries.has(key)) this.#delete(key);
    this.#entries.set(key, { analysis, expiresAt: this.#now() + cacheTtlMs(analysis) });
    for (const kid of analysis.signerKids) this.#index(this.#byKid, kid, key);
    if (analysis.agentId !== undefined) this.#index(this.#byAgent, analysis.agentId, key);
    while (this.#entries.size > this.maxEntries) {
      // Map iteration order is insertion order and get() re-inserts: the first key is the least recent.
      const oldest = this.#entries.keys().next().value as string;
      this.#delete(oldest);
    }
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
    for (const kid of entry.analysis.signerKids) this.#unindex(this.#byKid, kid, key);
    if (entry.analysis.agentId !== undefined) this.#unindex(this.#byAgent, entry.analysis.agentId, key);
  }
}
