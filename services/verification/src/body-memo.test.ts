// The exact-body memo: bounded, oldest out first, and JSON and CBOR readings of the same bytes kept apart.
import { describe, expect, it } from 'vitest';
import { BodyMemo } from './body-memo.ts';

const known = (cacheKey: string) => ({ cacheKey, evidence: undefined });

describe('BodyMemo', () => {
  it('keeps at most its bound, dropping the least recently stored body first', () => {
    const memo = new BodyMemo(2);
    const [a, b, c] = ['a', 'b', 'c'].map((t) => BodyMemo.digest('json', Buffer.from(t)));
    memo.set(a!, known('A'));
    memo.set(b!, known('B'));
    memo.set(a!, known('A'));
    memo.set(c!, known('C'));
    expect(memo.get(b!)).toBeUndefined();
    expect(memo.get(a!)?.cacheKey).toBe('A');
    expect(memo.get(c!)?.cacheKey).toBe('C');
  });

  it('names the format: the same bytes as JSON and as CBOR are different bodies', () => {
    const bytes = Buffer.from('{}');
    expect(BodyMemo.digest('json', bytes)).not.toBe(BodyMemo.digest('cbor', bytes));
    expect(BodyMemo.digest('json', bytes)).toBe(BodyMemo.digest('json', Buffer.from('{}')));
  });

  it('stores nothing when the cache is off', () => {
    const memo = new BodyMemo(0);
    const digest = BodyMemo.digest('json', Buffer.from('x'));
    memo.set(digest, known('X'));
    expect(memo.get(digest)).toBeUndefined();
  });

  it('bounds the evidence it holds in bytes: sender-sized receipts push older bodies out', () => {
    const memo = new BodyMemo(10_000, 64 * 1024);
    const receipt = { proof: 'x'.repeat(20_000) };
    const digests = Array.from({ length: 20 }, (_, i) => BodyMemo.digest('json', Buffer.from(`body-${i}`)));
    for (const d of digests) memo.set(d, { cacheKey: 'K', evidence: { anchor_receipt: receipt } });
    expect(memo.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(memo.get(digests[0]!)).toBeUndefined();
    expect(memo.get(digests[19]!)?.cacheKey).toBe('K');
    // One entry larger than the whole bound is not kept at all.
    const huge = BodyMemo.digest('json', Buffer.from('huge'));
    memo.set(huge, { cacheKey: 'H', evidence: { anchor_receipt: 'y'.repeat(70_000) } });
    expect(memo.get(huge)).toBeUndefined();
    expect(memo.get(digests[19]!)?.cacheKey).toBe('K');
  });
});
