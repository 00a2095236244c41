// A rate-limit store counting in Redis while it answers and in process memory while it does not.
// Issue 12 item 5: a Redis outage degrades the limit to a per-process budget, never to no limit (D17).
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

type StoreCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** The store contract of @fastify/rate-limit (incr, read, child per route). */
export interface RateLimitStore {
  incr(key: string, callback: StoreCallback, timeWindow: number, max: number): void;
  read?(key: string, callback: StoreCallback, timeWindow: number, max: number): void;
  child(routeOptions: object): RateLimitStore;
}

type RedisStoreCtor = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key: string,
) => RateLimitStore;
type LocalStoreCtor = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache?: number,
) => RateLimitStore;

// The plugin's own stores (CommonJS, no type declarations): the Redis one keeps its atomic Lua script.
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore') as RedisStoreCtor;
const LocalStore = require('@fastify/rate-limit/store/LocalStore') as LocalStoreCtor;

/** Shared by a store and its per-route children: whether Redis answers, and what to do when it stops. */
export interface FailoverState {
  readonly redis: Redis;
  /** Called on each command that failed over to the local budget. */
  onFallback(error: Error): void;
}

/** After a failed command, Redis is left alone this long: a silent Redis costs one slow request per pause. */
export const FAILOVER_PAUSE_MS = 5000;

const DOWN_STATUSES = new Set(['reconnecting', 'close', 'end']);

/** Tracks the pause after a failure; `down()` is what the store and the readiness check consult. */
export class FailoverHealth {
  readonly #redis: Redis;
  #pausedUntil = 0;

  constructor(redis: Redis) {
    this.#redis = redis;
  }

  /** Count locally: the connection is lost, or a command failed less than FAILOVER_PAUSE_MS ago. */
  down(): boolean {
    return DOWN_STATUSES.has(this.#redis.status) || Date.now() < this.#pausedUntil;
  }

  /** Shared counting is not in use: down, or not connected yet. */
  degraded(): boolean {
    return this.down() || this.#redis.status !== 'ready';
  }

  failed(): void {
    this.#pausedUntil = Date.now() + FAILOVER_PAUSE_MS;
  }
}

class FailoverStore implements RateLimitStore {
  private readonly shared: RateLimitStore;
  private readonly local: RateLimitStore;
  private readonly state: FailoverState;
  private readonly health: FailoverHealth;

  constructor(shared: RateLimitStore, local: RateLimitStore, state: FailoverState, health: FailoverHealth) {
    this.shared = shared;
    this.local = local;
    this.state = state;
    this.health = health;
  }

  private run(
    method: 'incr' | 'read',
    key: string,
    callback: StoreCallback,
    timeWindow: number,
    max: number,
  ) {
    const local = () => {
      const fn = this.local[method];
      if (fn) fn.call(this.local, key, callback, timeWindow, max);
      else callback(null, { current: 0, ttl: 0 });
    };
    // Connection lost or a recent failure: count locally at once rather than wait for a command that
    // cannot run. While the first connection is being made, commands wait for it (bounded by timeouts).
    if (this.health.down()) return local();
    const sharedFn = this.shared[method];
    if (!sharedFn) return local();
    sharedFn.call(
      this.shared,
      key,
      (error, result) => {
        if (error || !result) {
          this.health.failed();
          this.state.onFallback(error ?? new Error('empty answer from the rate-limit store'));
          return local();
        }
        callback(null, result);
      },
      timeWindow,
      max,
    );
  }

  incr(key: string, callback: StoreCallback, timeWindow: number, max: number): void {
    this.run('incr', key, callback, timeWindow, max);
  }

  read(key: string, callback: StoreCallback, timeWindow: number, max: number): void {
    this.run('read', key, callback, timeWindow, max);
  }

  child(routeOptions: object): RateLimitStore {
    return new FailoverStore(
      this.shared.child(routeOptions),
      this.local.child(routeOptions),
      this.state,
      this.health,
    );
  }
}

/**
 * The `store` option for @fastify/rate-limit: Redis at `nameSpace` while connected, otherwise an
 * in-memory LRU of `cacheSize` keys in this process.
 */
export function failoverStore(
  state: FailoverState,
  health: FailoverHealth,
  nameSpace: string,
  cacheSize = 5000,
) {
  return class implements RateLimitStore {
    private readonly inner: RateLimitStore;

    constructor(params: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      const continueExceeding = params.continueExceeding ?? false;
      const backoff = params.exponentialBackoff ?? false;
      this.inner = new FailoverStore(
        new RedisStore(continueExceeding, backoff, state.redis, nameSpace),
        new LocalStore(continueExceeding, backoff, cacheSize),
        state,
        health,
      );
    }

    incr(key: string, callback: StoreCallback, timeWindow: number, max: number): void {
      this.inner.incr(key, callback, timeWindow, max);
    }

    read(key: string, callback: StoreCallback, timeWindow: number, max: number): void {
      this.inner.read?.(key, callback, timeWindow, max);
    }

    child(routeOptions: object): RateLimitStore {
      return this.inner.child(routeOptions);
    }
  };
}
