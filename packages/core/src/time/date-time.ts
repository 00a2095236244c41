// The one check of a PROTOCOL `date-time` (RFC 3339 §5.6 as the schemas' `format: date-time` accepts it: ajv-formats'
// full check) and its reading as an instant, for every reader outside the schemas (a log's answer, P184; P202).
// The schemas use the same function (schema/date-time.ts), so what passes here is what a document may carry.
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { instantOf, type LeapSecondReading } from './instant.ts';

const ZERO = 0x30;
const NINE = 0x39;
/** Positions 0–18 of `YYYY-MM-DDTHH:MM:SS`: `d` = an ASCII digit, any other character = itself. */
const SHAPE = 'dddd-dd-ddTdd:dd:dd';
const D = 0x64;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;
/** More fraction digits could round seconds of 59.999… up to 60 (a leap second), which the full check judges. */
const MAX_FRACTION_DIGITS = 9;

const isDigit = (code: number): boolean => code >= ZERO && code <= NINE;
const twoDigits = (s: string, i: number): number =>
  (s.charCodeAt(i) - ZERO) * 10 + s.charCodeAt(i + 1) - ZERO;
const isLeapYear = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/**
 * True for `YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)` with an existing calendar day, hours ≤ 23, minutes
 * and seconds ≤ 59 and an offset of at most 23:59: every such string passes ajv-formats' full check
 * (exactly one `T`, no whitespace, no leap second, seconds below 60). False says only "not this shape":
 * lower-case separators, a space, `+0530`, leap seconds and the rest are left to the full check.
 */
export function isCommonDateTime(s: string): boolean {
  const n = s.length;
  if (n < 20) return false;
  for (let i = 0; i < SHAPE.length; i++) {
    const want = SHAPE.charCodeAt(i);
    const code = s.charCodeAt(i);
    if (want === D ? !isDigit(code) : code !== want) return false;
  }
  const year = twoDigits(s, 0) * 100 + twoDigits(s, 2);
  const month = twoDigits(s, 5);
  const day = twoDigits(s, 8);
  if (month < 1 || month > 12 || day < 1) return false;
  if (day > (month === 2 && isLeapYear(year) ? 29 : DAYS[month]!)) return false;
  if (twoDigits(s, 11) > 23 || twoDigits(s, 14) > 59 || twoDigits(s, 17) > 59) return false;
  let i = SHAPE.length;
  if (s.charCodeAt(i) === 0x2e /* . */) {
    const start = ++i;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
    if (i === start || i - start > MAX_FRACTION_DIGITS) return false;
  }
  const zone = s.charCodeAt(i);
  if (zone === 0x5a /* Z */) return i + 1 === n;
  if ((zone !== 0x2b /* + */ && zone !== 0x2d) /* - */ || i + 6 !== n) return false;
  if (!isDigit(s.charCodeAt(i + 1)) || !isDigit(s.charCodeAt(i + 2)) || s.charCodeAt(i + 3) !== 0x3a)
    return false;
  if (!isDigit(s.charCodeAt(i + 4)) || !isDigit(s.charCodeAt(i + 5))) return false;
  return twoDigits(s, i + 1) <= 23 && twoDigits(s, i + 4) <= 59;
}

const fullDateTime = (() => {
  const format = fullFormats['date-time'];
  if (typeof format !== 'object' || format instanceof RegExp || typeof format.validate !== 'function')
    throw new Error('ajv-formats no longer defines date-time as a function format');
  return format.validate as (text: string) => boolean;
})();

/** Whether `text` is a PROTOCOL `date-time`: exactly the strings the schemas' `format: date-time` accepts. */
export function isDateTime(text: string): boolean {
  return isCommonDateTime(text) || fullDateTime(text);
}

/**
 * Milliseconds since the epoch of a PROTOCOL `date-time` (a leap second read as `reading` says, P178), or NaN for
 * any other string: unlike instantOf alone, nothing Date.parse merely guesses at (`March 7`, `2026-02-30`) reads.
 */
export function dateTimeInstant(text: string, reading: LeapSecondReading): number {
  return isDateTime(text) ? instantOf(text, reading) : Number.NaN;
}
