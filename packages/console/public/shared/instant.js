// A PROTOCOL date-time as milliseconds since the epoch, as packages/core's instantOf reads it (P175, P178): Date.parse,
// plus RFC 3339's leap second (`…T23:59:60Z`), which Date.parse calls NaN. POSIX time has no room for it, so the
// caller says which neighbour is safe: 'earliest' (the millisecond before) for an expiry, 'latest' (the next
// midnight) for a time that must not be in the future. Kept equal to core's by browser-modules.test.ts.

const LEAP_SECOND = /^(.+T\d\d:\d\d):60(?:\.\d+)?(Z|[+-]\d\d(?::?\d\d)?)$/i;

/** Milliseconds since the epoch, or NaN; `reading` is 'earliest' or 'latest'. */
export function instantOf(text, reading) {
  if (typeof text !== 'string') return Number.NaN;
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
