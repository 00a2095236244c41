// instantOf: Date.parse, plus RFC 3339's leap second at the end of a UTC day (P175), read on the side the caller
// names (P178).
import { describe, expect, it } from 'vitest';
import { sameInstant } from '../anchor/check-outcome.ts';
import { instantOf } from './instant.ts';

describe('instantOf', () => {
  it('reads what Date.parse reads, unchanged, whichever side is asked for', () => {
    for (const text of ['2030-06-30T23:59:59Z', '2030-06-30T23:59:59.5+01:00', '2030-06-30t23:59:59z'])
      for (const reading of ['earliest', 'latest'] as const)
        expect(instantOf(text, reading)).toBe(Date.parse(text));
  });

  it('reads every form the schemas accept as the instant it names, the years below 50 too (P222)', () => {
    const rows: [string, string][] = [
      ['2026-03-07T12:00:00+05', '2026-03-07T07:00:00.000Z'],
      ['2026-03-07T12:00:00.5-05', '2026-03-07T17:00:00.500Z'],
      ['2026-03-07T12:00:00+0530', '2026-03-07T06:30:00.000Z'],
      ['2026-03-07 12:00:00+05', '2026-03-07T07:00:00.000Z'],
      ['2026-03-07\t12:00:00z', '2026-03-07T12:00:00.000Z'],
      ['0001-01-01 00:00:00Z', '0001-01-01T00:00:00.000Z'],
      ['0049-06-30T12:00:00+0000', '0049-06-30T12:00:00.000Z'],
      ['2017-01-01T05:59:60+06', '2016-12-31T23:59:59.999Z'],
    ];
    for (const [text, iso] of rows) expect(instantOf(text, 'earliest'), text).toBe(Date.parse(iso));
    expect(instantOf('2017-01-01 05:59:60+06', 'latest')).toBe(Date.parse('2017-01-01T00:00:00Z'));
  });

  it('reads a leap second as the last millisecond before it, or as the next midnight', () => {
    const before = Date.parse('2016-12-31T23:59:59Z');
    const midnight = Date.parse('2017-01-01T00:00:00Z');
    for (const text of ['2016-12-31T23:59:60Z', '2016-12-31T23:59:60.999999Z', '2017-01-01T05:29:60+05:30']) {
      expect(instantOf(text, 'earliest'), text).toBe(before + 999);
      expect(instantOf(text, 'latest'), text).toBe(midnight);
    }
  });

  it('leaves :60 anywhere but the last minute of a UTC day, and garbage, unreadable', () => {
    for (const text of [
      '2016-12-31T12:30:60Z',
      '2016-12-31T23:59:60+01:00',
      '2016-12-31T23:59:60',
      'soon',
      '',
    ])
      for (const reading of ['earliest', 'latest'] as const) expect(instantOf(text, reading), text).toBeNaN();
  });
});

describe('sameInstant (an anchor receipt against the chain time)', () => {
  it('never matches a leap second to a POSIX chain time on either side of it', () => {
    expect(sameInstant('2016-12-31T23:59:60Z', '2016-12-31T23:59:59.000Z')).toBe(false);
    expect(sameInstant('2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z')).toBe(false);
    expect(sameInstant('2017-01-01T01:00:00+01:00', '2017-01-01T00:00:00.000Z')).toBe(true);
    expect(sameInstant('soon', 'soon')).toBe(false);
  });
});
