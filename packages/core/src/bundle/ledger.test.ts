// The ledger's warnings: each message once, in the order first seen, at a cost that grows with their number,
// not with its square (P149: a signer lists thousands of revoked keys, one warning each).
import { describe, expect, it } from 'vitest';
import { Ledger } from './ledger.ts';

const kid = (i: number) => i.toString(16).padStart(32, '0');
const message = (i: number) => `Key ${kid(i)} is revoked; it signed nothing here`;

describe('Ledger warnings', () => {
  it('keeps each message once, in the order first seen', () => {
    const ledger = new Ledger();
    for (const m of ['b', 'a', 'b', 'c', 'a']) ledger.warn(m);
    expect(ledger.warnings).toEqual(['b', 'a', 'c']);
  });

  it('takes 10,000 distinct messages (and each again) in linear time', () => {
    const ledger = new Ledger();
    const started = performance.now();
    for (let round = 0; round < 2; round++) for (let i = 0; i < 10_000; i++) ledger.warn(message(i));
    const elapsed = performance.now() - started;
    expect(ledger.warnings).toHaveLength(10_000);
    expect(ledger.warnings[9_999]).toBe(message(9_999));
    // Linear: a few ms here. The scan of every earlier message took seconds (150 million comparisons of 36-character common prefixes).
    expect(elapsed).toBeLessThan(250);
  });
});
