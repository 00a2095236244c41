// The `date-time` format as ajv-formats' full RFC 3339 check decides it, with a fast path for the shape
// every SDK writes. Issue 14 (schema validation cost), P77.
import type { FormatDefinition } from 'ajv/dist/2020.js';

type Ajv = InstanceType<typeof import('ajv/dist/2020.js').default>;

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

/**
 * Puts the fast path in front of the `date-time` format already added to `ajv` (ajv-formats' full
 * check), which still decides every string the fast path does not accept: the accepted set is unchanged.
 */
export function useFastDateTime(ajv: Ajv): void {
  const full = ajv.formats['date-time'];
  if (typeof full !== 'object' || full instanceof RegExp || full.async === true || full.type === 'number') {
    throw new Error(
      'the date-time format must be a synchronous string function format (ajv-formats, full mode)',
    );
  }
  // A string format (the checks above): its validator and comparison take strings.
  const { validate, compare } = full as FormatDefinition<string>;
  if (typeof validate !== 'function') throw new Error('the date-time format has no validate function');
  const fast: FormatDefinition<string> = {
    validate: (value) => isCommonDateTime(value) || validate(value),
  };
  if (compare !== undefined) fast.compare = compare;
  ajv.addFormat('date-time', fast);
}
