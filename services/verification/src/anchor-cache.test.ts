// The per-receipt anchor cache on its own: what makes two receipts the same entry, what is kept and for how long.
// Issue 12 item 6; the HTTP proof with a real chain is test/hostile/external-io.test.ts.
import type { AnchorCheck } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { anchorCacheKey, createAnchorCheckCache } from './anchor-cache.ts';

const HASH_A = `sha256:${'aa'.repeat(32)}`;
const HASH_B = `sha256:${'bb'.repeat(32)}`;
const passed: AnchorCheck = { status: 'pass', message: 'ok', retryable: false, warnings: [] };
const outage: AnchorCheck = {
  status: 'skipped',
  code: 'CIRCUIT_OPEN',
  message: 'down',
  retryable: true,
  warnings: [],
};

function counted(answer: AnchorCheck) {
  const calls = { n: 0 };
  const run = async () => {
    calls.n += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return answer;
  };
  return { calls, run };
}

describe('anchorCacheKey', () => {
  it('is the same for two spellings of one receipt and differs per bundle hash', () => {
    const one = anchorCacheKey({ chain: 'ethereum', tx_id: '0x01', block_number: 7 }, HASH_A);
    const reordered = anchorCacheKey({ block_number: 7, tx_id: '0x01', chain: 'ethereum' }, HASH_A);
    expect(one).toMatch(/^[0-9a-f]{64}$/);
    expect(reordered).toBe(one);
    expect(anchorCacheKey({ chain: 'ethereum', tx_id: '0x01', block_number: 7 }, HASH_B)).not.toBe(one);
    expect(anchorCacheKey({ chain: 'ethereum', tx_id: '0x02', block_number: 7 }, HASH_A)).not.toBe(one);
    // P62: the secondary hash the receipt is compared with is part of the key.
    const withSecondary = anchorCacheKey(
      { chain: 'ethereum', tx_id: '0x01', block_number: 7 },
      HASH_A,
      `sha3-256:${'1'.repeat(64)}`,
    );
    expect(withSecondary).not.toBe(one);
    expect(
      anchorCacheKey(
        { chain: 'ethereum', tx_id: '0x01', block_number: 7 },
        HASH_A,
        `sha3-256:${'2'.repeat(64)}`,
      ),
    ).not.toBe(withSecondary);
  });

  it('is undefined for a value with no canonical JSON form (never cached)', () => {
    expect(anchorCacheKey({ n: 10n }, HASH_A)).toBeUndefined();
    expect(anchorCacheKey({ x: Number.NaN }, HASH_A)).toBeUndefined();
  });
});

describe('createAnchorCheckCache', () => {
  it('keeps a final answer and shares a look-up in flight', async () => {
    const cache = createAnchorCheckCache({ maxEntries: 10, ttlMs: 60_000, retryTtlMs: 0 });
    const { calls, run } = counted(passed);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => cache.check({ r: 1 }, HASH_A, undefined, run)),
    );
    expect(answers).toEqual(Array(5).fill(passed));
    await cache.check({ r: 1 }, HASH_A, undefined, run);
    expect(calls.n).toBe(1);
  });

  it('does not keep a retryable answer when the retry TTL is 0, nor anything when maxEntries is 0', async () => {
    const noRetry = createAnchorCheckCache({ maxEntries: 10, ttlMs: 60_000, retryTtlMs: 0 });
    const down = counted(outage);
    await noRetry.check({ r: 2 }, HASH_A, undefined, down.run);
    await noRetry.check({ r: 2 }, HASH_A, undefined, down.run);
    expect(down.calls.n).toBe(2);

    const off = createAnchorCheckCache({ maxEntries: 0, ttlMs: 60_000, retryTtlMs: 1000 });
    const ok = counted(passed);
    await off.check({ r: 3 }, HASH_A, undefined, ok.run);
    await off.check({ r: 3 }, HASH_A, undefined, ok.run);
    expect(ok.calls.n).toBe(2);
  });

  it('runs every time for a receipt without a key', async () => {
    const cache = createAnchorCheckCache({ maxEntries: 10, ttlMs: 60_000, retryTtlMs: 1000 });
    const { calls, run } = counted(passed);
    await cache.check({ n: 1n }, HASH_A, undefined, run);
    await cache.check({ n: 1n }, HASH_A, undefined, run);
    expect(calls.n).toBe(2);
  });
});
