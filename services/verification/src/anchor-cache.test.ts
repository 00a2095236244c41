// The per-receipt anchor cache on its own: what makes two receipts the same entry, what is kept and for how long.
// Issue 12 item 6; the HTTP proof with a real chain is test/hostile/external-io.test.ts.
import type { AnchorCheck } from '@proto/service-kit';
import { describe, expect, it } from 'vitest';
import { anchorCacheKey, createAnchorCheckCache } from './anchor-cache.ts';
import { loadVerificationConfig } from './config.ts';

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

describe('P462: final confirmations per chain', () => {
  const deep = (kind: 'evm' | 'bitcoin', confirmations: number): AnchorCheck => ({
    ...passed,
    kind,
    confirmations,
  });
  const btcReceipt = { chain: 'bitcoin', network: 'mainnet', tx_id: 'ab'.repeat(32), block_height: 800_000 };
  const evmReceipt = (chain: string) => ({
    chain,
    contract: `0x${'11'.repeat(20)}`,
    tx_id: `0x${'22'.repeat(32)}`,
  });

  /** How many look-ups two checks of one receipt cost under the service's configured table (retry TTL 0). */
  async function lookups(env: Record<string, string>, receipt: object, answer: AnchorCheck): Promise<number> {
    const config = loadVerificationConfig(env);
    const cache = createAnchorCheckCache({
      maxEntries: 10,
      ttlMs: 60_000,
      retryTtlMs: 0,
      finalConfirmations: config.ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS,
    });
    const { calls, run } = counted(answer);
    await cache.check(receipt, HASH_A, undefined, run);
    await cache.check(receipt, HASH_A, undefined, run);
    return calls.n;
  }

  it('keeps a Bitcoin pass at 6 confirmations by default, an Ethereum one only at 64', async () => {
    // Before P462: 64 for every chain, so the 6-deep Bitcoin pass was looked up again (2).
    expect(await lookups({}, btcReceipt, deep('bitcoin', 6))).toBe(1);
    expect(await lookups({}, btcReceipt, deep('bitcoin', 5))).toBe(2);
    expect(await lookups({}, evmReceipt('ethereum'), deep('evm', 63))).toBe(2);
    expect(await lookups({}, evmReceipt('ethereum'), deep('evm', 64))).toBe(1);
  });

  it('reads a chain name before its kind, and a bare number for every chain', async () => {
    const env = { ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS: 'evm=64,bitcoin=6,polygon=256,12' };
    expect(await lookups(env, evmReceipt('polygon'), deep('evm', 200))).toBe(2);
    expect(await lookups(env, evmReceipt('polygon'), deep('evm', 256))).toBe(1);
    expect(await lookups(env, evmReceipt('sepolia'), deep('evm', 64))).toBe(1);
    // P393's setting, a bare number, still means every chain.
    const every = { ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS: '64' };
    expect(await lookups(every, btcReceipt, deep('bitcoin', 6))).toBe(2);
  });

  it('refuses a malformed table at boot, naming the variable', () => {
    for (const bad of [
      ' ',
      'evm=0',
      'evm=x',
      'bitcoin=6,bitcoin=7',
      '6,7',
      'Evm=6',
      'evm=6=7',
      '-1',
      '1e3',
    ]) {
      expect(
        () => loadVerificationConfig({ ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS: bad }),
        JSON.stringify(bad),
      ).toThrow(/ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS/);
    }
  });
});
