// The four-digit-year range of PROTOCOL times (P217): its bounds are exactly what toISOString writes unsigned.
import { describe, expect, it } from 'vitest';
import { FIRST_RFC3339_MS, isRfc3339Instant, isRfc3339Second, LAST_RFC3339_MS } from './index.ts';

describe('the instants an RFC 3339 time can name', () => {
  it('are 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z', () => {
    expect(new Date(FIRST_RFC3339_MS).toISOString()).toBe('0000-01-01T00:00:00.000Z');
    expect(new Date(LAST_RFC3339_MS).toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(new Date(FIRST_RFC3339_MS - 1).toISOString()).toBe('-000001-12-31T23:59:59.999Z');
    expect(new Date(LAST_RFC3339_MS + 1).toISOString()).toBe('+010000-01-01T00:00:00.000Z');
  });

  it('in milliseconds and in whole seconds, as a number or a bigint', () => {
    for (const ms of [FIRST_RFC3339_MS, 0, LAST_RFC3339_MS]) expect(isRfc3339Instant(ms)).toBe(true);
    for (const ms of [
      FIRST_RFC3339_MS - 1,
      LAST_RFC3339_MS + 1,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      8.64e15,
    ])
      expect(isRfc3339Instant(ms)).toBe(false);
    for (const s of [-62_167_219_200, 0, 1_750_000_000, 253_402_300_799]) {
      expect(isRfc3339Second(s)).toBe(true);
      expect(isRfc3339Second(BigInt(s))).toBe(true);
    }
    for (const s of [-62_167_219_201, 253_402_300_800, 1e13]) {
      expect(isRfc3339Second(s)).toBe(false);
      expect(isRfc3339Second(BigInt(s))).toBe(false);
    }
    expect(isRfc3339Second(1.5)).toBe(false);
    expect(isRfc3339Second(2n ** 256n - 1n)).toBe(false);
  });
});
