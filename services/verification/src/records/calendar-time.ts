// Whether an RFC 3339 date-time names fields a calendar has. The transition route's pattern takes any two digits
// and Date.parse rolls the rest over (30 February reads as 2 March, 24:00 as the next midnight), where RFC 3339
// §5.7 and the schemas' `date-time` refuse them: a signed move would be stored dated a day no other reader finds (P198).

/** `YYYY-MM-DDTHH:MM:SS[.f]` and a zone (`Z` or `±HH:MM`), each field captured; either case for `T` and `Z`. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/i;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

const isLeapYear = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

function daysIn(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/**
 * True when `text` has the shape above and every field is in its RFC 3339 range: a day of that month (29 February
 * only in a leap year), hours ≤ 23, minutes ≤ 59, seconds ≤ 60 and an offset of at most 23:59. A second of 60 is
 * left to the leap-second reading, which accepts it only in the last minute of a UTC day.
 */
export function hasCalendarFields(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (match === null) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  const offsetHours = match[7] === undefined ? 0 : Number(match[7]);
  const offsetMinutes = match[8] === undefined ? 0 : Number(match[8]);
  return offsetHours <= 23 && offsetMinutes <= 59;
}
