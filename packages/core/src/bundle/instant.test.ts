// instantOf: Date.parse, plus RFC 3339's leap second at the end of a UTC day (P175).
import { describe, expect, it } from 'vitest';
import { instantOf } from './instant.ts';

describe('instantOf', () => {
  it('reads what Date.parse reads, unchanged', () => {
    for (const text of ['2030-06-30T23:59:59Z', '2030-06-30T23:59:59.5+01:00', '2030-06-30t23:59:59z'])
      expect(instantOf(text)).toBe(Date.parse(text));
  });

  it('reads a leap second as the last millisecond of the second before it', () => {
    const before = Date.parse('2016-12-31T23:59:59Z');
    expect(instantOf('2016-12-31T23:59:60Z')).toBe(before + 999);
    expect(instantOf('2016-12-31T23:59:60.999999Z')).toBe(before + 999);
    expect(instantOf('2017-01-01T05:29:60+05:30')).toBe(before + 999);
    expect(instantOf('2016-12-31T23:59:60Z')).toBeLessThan(Date.parse('2017-01-01T00:00:00Z'));
  });

  it('leaves :60 anywhere but the last minute of a UTC day, and garbage, unreadable', () => {
    for (const text of [
      '2016-12-31T12:30:60Z',
      '2016-12-31T23:59:60+01:00',
      '2016-12-31T23:59:60',
      'soon',
      '',
    ])
      expect(instantOf(text), text).toBeNaN();
  });
});
