// isDateTime is the schemas' date-time (the equivalence suite proves the fast path; here the public check and the
// schemas agree), and dateTimeInstant reads every such string, nothing else (P202).
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { dateTimeInstant, isDateTime } from './date-time.ts';
import { instantOf } from './instant.ts';

const ACCEPTED = [
  '2026-03-07T12:00:00Z',
  '2026-03-07t12:00:00.5z',
  '2026-03-07 12:00:00+05:30',
  '2026-03-07\t12:00:00+0530',
  '2026-03-07T12:00:00+05',
  '2016-12-31T23:59:60Z',
  '2016-12-31 23:59:60.25Z',
  '2017-01-01T05:29:60+05:30',
  '0001-01-01 00:00:00Z',
  '0049-06-30T12:00:00+0000',
];
const REFUSED = [
  'March 7, 2026',
  '2026-03-07',
  '2026',
  '2026-02-30T00:00:00Z',
  '2026-03-07T24:00:00Z',
  '2026-03-07T12:00:00',
  '2026-03-07T12:30:60Z',
  '2026-03-07TT12:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '',
];

describe('isDateTime', () => {
  it("accepts and refuses what stock ajv-formats' full date-time (the schemas' format before P77) does", () => {
    const ajv = new Ajv2020Module.default({ strict: true });
    addFormatsModule.default(ajv);
    const schemaSays = ajv.compile({ type: 'string', format: 'date-time' });
    for (const text of ACCEPTED) expect([isDateTime(text), schemaSays(text)], text).toEqual([true, true]);
    for (const text of REFUSED) expect([isDateTime(text), schemaSays(text)], text).toEqual([false, false]);
  });
});

describe('dateTimeInstant', () => {
  it('reads every accepted form, including the two Date.parse does not', () => {
    expect(dateTimeInstant('2026-03-07T12:00:00+05', 'earliest')).toBe(Date.parse('2026-03-07T07:00:00Z'));
    expect(dateTimeInstant('2026-03-07\t12:00:00+0530', 'earliest')).toBe(Date.parse('2026-03-07T06:30:00Z'));
    expect(dateTimeInstant('2016-12-31 23:59:60.25Z', 'earliest')).toBe(
      Date.parse('2016-12-31T23:59:59.999Z'),
    );
    expect(dateTimeInstant('2016-12-31 23:59:60Z', 'latest')).toBe(Date.parse('2017-01-01T00:00:00Z'));
    for (const text of ACCEPTED)
      for (const reading of ['earliest', 'latest'] as const)
        expect(dateTimeInstant(text, reading), text).not.toBeNaN();
  });

  it('agrees with instantOf on every date-time, which reads them all (P222), and reads nothing else', () => {
    for (const text of ACCEPTED)
      for (const reading of ['earliest', 'latest'] as const)
        expect(instantOf(text, reading), text).toBe(dateTimeInstant(text, reading));
    for (const text of REFUSED) expect(dateTimeInstant(text, 'latest'), text).toBeNaN();
  });
});
