// A PROTOCOL `date-time` (RFC 3339, as the schemas' ajv-formats full check accepts it) as milliseconds since the
// epoch. Date.parse reads every such form but one: a leap second (`…T23:59:60Z`, RFC 3339 §5.6–5.7), which it
// calls NaN, so a key valid until a leap second years away read as unreadable, that is expired (P175).

/** `:60` seconds, any fraction, with the zone RFC 3339 requires. */
const LEAP_SECOND = /^(.+T\d\d:\d\d):60(?:\.\d+)?(Z|[+-]\d\d(?::?\d\d)?)$/i;

/**
 * Milliseconds since the epoch, or NaN when unreadable. A leap second is the last millisecond of the second before
 * it (POSIX time has no room for it): never later than the instant written, so an expiry it names is not extended.
 * `:60` anywhere but the last minute of a UTC day is no leap second and stays unreadable.
 */
export function instantOf(text: string): number {
  const ms = Date.parse(text);
  if (!Number.isNaN(ms)) return ms;
  const leap = LEAP_SECOND.exec(text);
  if (leap === null) return Number.NaN;
  const before = Date.parse(`${leap[1]}:59${leap[2]}`);
  if (Number.isNaN(before)) return Number.NaN;
  const utc = new Date(before);
  if (utc.getUTCHours() !== 23 || utc.getUTCMinutes() !== 59) return Number.NaN;
  return before + 999;
}
