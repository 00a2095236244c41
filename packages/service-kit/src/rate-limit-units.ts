// Taking several units of a rate-limit budget in one atomic step (POST /verify/batch: one unit per bundle,
// one Redis round trip per batch). All or nothing: a request whose units do not all fit takes none (P78).
// Redis while it answers, process memory while it does not (the failover of D17 / issue 12 item 5).
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { FailoverHealth } from './failover-store.ts';

export interface UnitsTaken {
  /** The units were taken; false: none were (the budget would be exceeded). */
  readonly taken: boolean;
  /** The budget's count after this call (unchanged when refused). */
  readonly current: number;
  /** Milliseconds until the budget's window ends (0 when no window is open). */
  readonly ttlMs: number;
}

/** Takes `units` of the budget `key` (at most `max` per `windowMs`), all or none. */
export type TakeUnits = (key: string, units: number, max: number, windowMs: number) => Promise<UnitsTaken>;

// Read, compare and add inside one script: two concurrent batches cannot both see room for their units.
// The window starts with the first unit taken (as @fastify/rate-limit's own script does with INCR).
const TAKE_UNITS_LUA = `
local key = KEYS[1]
local units = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local current = tonumber(redis.call('GET', key) or '0')
local ttl = redis.call('PTTL', key)
if current + units > max then
  if ttl < 0 then ttl = 0 end
  return {current, ttl, 0}
end
current = redis.call('INCRBY', key, units)
if ttl < 0 then
  redis.call('PEXPIRE', key, window)
  ttl = window
end
return {current, ttl, 1}
`;

interface UnitsRedis extends Redis {
  takeRateLimitUnits(
    key: string,
    units: number,
    max: number,
    windowMs: number,
  ): Promise<[number, number, number]>;
}

/** The Redis side: one EVALSHA per call (ioredis loads the script on first use). */
export function redisTakeUnits(redis: Redis, nameSpace: string): TakeUnits {
  const client = redis as UnitsRedis;
  if (typeof client.takeRateLimitUnits !== 'function') {
    redis.defineCommand('takeRateLimitUnits', { numberOfKeys: 1, lua: TAKE_UNITS_LUA });
  }
  return async (key, units, max, windowMs) => {
    const [current, ttlMs, taken] = await client.takeRateLimitUnits(
      `${nameSpace}${key}`,
      units,
      max,
      windowMs,
    );
    return { taken: taken === 1, current, ttlMs };
  };
}

interface LocalWindow {
  count: number;
  endsAt: number;
}

/**
 * The in-memory side: one window per key, the least recently used key dropped beyond `cacheSize` (as the
 * plugin's LocalStore bounds its LRU). Synchronous, so atomic within the process.
 */
export function localTakeUnits(cacheSize = 5000): TakeUnits {
  const windows = new LRUCache<string, LocalWindow>({ max: cacheSize });
  return async (key, units, max, windowMs) => {
    const now = Date.now();
    let window = windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { count: 0, endsAt: 0 };
      windows.set(key, window);
    }
    const ttlMs = window.count === 0 ? 0 : window.endsAt - now;
    if (window.count + units > max) return { taken: false, current: window.count, ttlMs };
    if (window.count === 0) window.endsAt = now + windowMs;
    window.count += units;
    return { taken: true, current: window.count, ttlMs: window.endsAt - now };
  };
}

/** Redis while it answers; after a failure, memory for FAILOVER_PAUSE_MS (the health the store shares). */
export function failoverTakeUnits(
  shared: TakeUnits,
  local: TakeUnits,
  health: FailoverHealth,
  onFallback: (error: Error) => void,
): TakeUnits {
  return async (key, units, max, windowMs) => {
    if (health.down()) return local(key, units, max, windowMs);
    try {
      return await shared(key, units, max, windowMs);
    } catch (error) {
      health.failed();
      onFallback(error as Error);
      return local(key, units, max, windowMs);
    }
  };
}
