// One contract for both sides of the batch budget (P78): the in-memory store must answer as Redis does, or a
// Redis outage would change who gets verified. Redis at REDIS_URL is the real server, not a double.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { localTakeUnits, redisTakeUnits, type TakeUnits } from './rate-limit-units.ts';

const REDIS_URL = process.env['REDIS_URL'];
const clients: Redis[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit()));
});

const sides: [string, () => TakeUnits][] = [['memory', () => localTakeUnits()]];
if (REDIS_URL) {
  sides.push([
    'Redis',
    () => {
      const redis = new Redis(REDIS_URL);
      clients.push(redis);
      return redisTakeUnits(redis, `units-test:${randomUUID()}:`);
    },
  ]);
}

describe.each(sides)('taking units, %s', (_name, make) => {
  it('takes all the units or none', async () => {
    const take = make();
    const first = await take('a', 7, 10, 60_000);
    expect(first).toMatchObject({ taken: true, current: 7 });
    expect(first.ttlMs).toBeGreaterThan(59_000);
    const refused = await take('a', 4, 10, 60_000);
    expect(refused).toMatchObject({ taken: false, current: 7 });
    expect(refused.ttlMs).toBeGreaterThan(0);
    expect(await take('a', 3, 10, 60_000)).toMatchObject({ taken: true, current: 10 });
    expect(await take('a', 1, 10, 60_000)).toMatchObject({ taken: false, current: 10 });
  });

  it('keeps one budget per key', async () => {
    const take = make();
    expect(await take('a', 10, 10, 60_000)).toMatchObject({ taken: true });
    expect(await take('b', 10, 10, 60_000)).toMatchObject({ taken: true, current: 10 });
  });

  it('refuses a request larger than the whole budget without opening a window', async () => {
    const take = make();
    expect(await take('a', 11, 10, 60_000)).toEqual({ taken: false, current: 0, ttlMs: 0 });
    expect(await take('a', 10, 10, 60_000)).toMatchObject({ taken: true, current: 10 });
  });

  it('opens a new window once the last one has ended', async () => {
    const take = make();
    expect(await take('a', 10, 10, 50)).toMatchObject({ taken: true });
    expect(await take('a', 1, 10, 50)).toMatchObject({ taken: false });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await take('a', 1, 10, 50)).toMatchObject({ taken: true, current: 1 });
  });
});

describe('the in-memory store is bounded', () => {
  it('forgets the least recently used key beyond its size, and only that one', async () => {
    const take = localTakeUnits(2);
    await take('old', 10, 10, 60_000);
    await take('kept', 10, 10, 60_000);
    // Touching 'old' makes 'kept' the least recently used: the third key evicts 'kept', not 'old'.
    expect(await take('old', 1, 10, 60_000)).toMatchObject({ taken: false });
    await take('third', 1, 10, 60_000);
    expect(await take('old', 1, 10, 60_000)).toMatchObject({ taken: false, current: 10 });
    expect(await take('kept', 1, 10, 60_000)).toMatchObject({ taken: true, current: 1 });
  });
});
