// A PROTOCOL `date-time` (RFC 3339, as the schemas' ajv-formats full check accepts it) as milliseconds since the
// epoch. Every form the schemas accept is first written as ECMAScript's own (`T`, `Z`, `±HH:MM`, P222): Date.parse
// calls `+05` and a leap second NaN, and reads a space or `+0530` with its legacy parser, which takes the years
// 0000–0049 for 2000–2049. A leap second (`…T23:59:60Z`, RFC 3339 §5.6–5.7) is read on the side the caller names
// (P175, P178): POSIX time has no room for it, it lies after the last millisecond of 23:59:59 and before midnight.

/** The schemas' date-time shape: any separator they take (`T`, `t`, white space), `Z` or `±HH`, `±HHMM`, `±HH:MM`. */
const SCHEMA_FORM = /^(\d{4}-\d\d-\d\d)[T\s](\d\d:\d\d:\d\d(?:\.\d+)?)(?:Z|([+-]\d\d)(?::?(\d\d))?)$/i;

/** `:60` seconds, any fraction, with the zone RFC 3339 requires. */
const LEAP_SECOND = /^(.+T\d\d:\d\d):60(?:\.\d+)?(Z|[+-]\d\d(?::?\d\d)?)$/i;

/**
 * Which neighbour a leap second is read as. `earliest` (the last millisecond before it) for a time after which
 * something stops counting: an expiry, a key's `valid_until`, the start of an age limit; so nothing is extended.
 * `latest` (the next midnight) for a time before which something does not count yet: a not-before, a key's
 * `valid_from`, an issue time checked against the clock skew; so nothing starts early.
 */
export type LeapSecondReading = 'earliest' | 'latest';

/** A string of the schemas' date-time shape as ECMAScript's date-time string format writes it; any other as it is. */
function asEcmaScriptWrites(text: string): string {
  const form = SCHEMA_FORM.exec(text);
  if (form === null) return text;
  const zone = form[3] === undefined ? 'Z' : `${form[3]}:${form[4] ?? '00'}`;
  return `${form[1]}T${form[2]}${zone}`;
}

/**
 * Milliseconds since the epoch, or NaN when unreadable. Every form of a schema date-time reads as the instant it
 * names; a leap second is read as `reading` says, and `:60` anywhere but the last minute of a UTC day is no leap
 * second and stays unreadable. Any other string is Date.parse's reading (dateTimeInstant reads none of them).
 */
export function instantOf(text: string, reading: LeapSecondReading): number {
  const written = asEcmaScriptWrites(text);
  const ms = Date.parse(written);
  if (!Number.isNaN(ms)) return ms;
  const leap = LEAP_SECOND.exec(written);
  if (leap === null) return Number.NaN;
  const before = Date.parse(`${leap[1]}:59${leap[2]}`);
  if (Number.isNaN(before)) return Number.NaN;
  const utc = new Date(before);
  if (utc.getUTCHours() !== 23 || utc.getUTCMinutes() !== 59) return Number.NaN;
  return reading === 'earliest' ? before + 999 : before + 1000;
}
