// A PROTOCOL `date-time` (RFC 3339, as the schemas' ajv-formats full check accepts it) as milliseconds since the
// epoch. Date.parse reads every common form but a leap second (`…T23:59:60Z`, RFC 3339 §5.6–5.7), which it
// calls NaN (the rarer forms it misses, `+05` and a leap second after a space, dateTimeInstant rewrites first), so a key valid until a leap second years away read as unreadable, that is expired (P175). POSIX time
// has no room for the leap second: it lies after the last millisecond of 23:59:59 and before midnight, so each
// reader says which neighbour is the safe side for its check (P178).

/** `:60` seconds, any fraction, with the zone RFC 3339 requires. */
const LEAP_SECOND = /^(.+T\d\d:\d\d):60(?:\.\d+)?(Z|[+-]\d\d(?::?\d\d)?)$/i;

/**
 * Which neighbour a leap second is read as. `earliest` (the last millisecond before it) for a time after which
 * something stops counting: an expiry, a key's `valid_until`, the start of an age limit; so nothing is extended.
 * `latest` (the next midnight) for a time before which something does not count yet: a not-before, a key's
 * `valid_from`, an issue time checked against the clock skew; so nothing starts early.
 */
export type LeapSecondReading = 'earliest' | 'latest';

/**
 * Milliseconds since the epoch, or NaN when unreadable. Every string but a leap second is Date.parse's reading;
 * a leap second is read as `reading` says. `:60` anywhere but the last minute of a UTC day is no leap second
 * and stays unreadable.
 */
export function instantOf(text: string, reading: LeapSecondReading): number {
  const ms = Date.parse(text);
  if (!Number.isNaN(ms)) return ms;
  const leap = LEAP_SECOND.exec(text);
  if (leap === null) return Number.NaN;
  const before = Date.parse(`${leap[1]}:59${leap[2]}`);
  if (Number.isNaN(before)) return Number.NaN;
  const utc = new Date(before);
  if (utc.getUTCHours() !== 23 || utc.getUTCMinutes() !== 59) return Number.NaN;
  return reading === 'earliest' ? before + 999 : before + 1000;
}
