// A PROTOCOL date-time as milliseconds since the epoch, as packages/core's instantOf reads it (P175, P178, P222):
// every form the schemas accept is first written as ECMAScript's own (`T`, `Z`, `±HH:MM`), since Date.parse calls
// `+05` NaN and reads a space with a legacy parser that takes the years 0000–0049 for 2000–2049; then Date.parse,
// plus RFC 3339's leap second (`…T23:59:60Z`), which Date.parse calls NaN. POSIX time has no room for it, so the
// caller says which neighbour is safe: 'earliest' (the millisecond before) for an expiry, 'latest' (the next
// midnight) for a time that must not be in the future. Kept equal to core's by browser-modules.test.ts.

const SCHEMA_FORM = /^(\d{4}-\d\d-\d\d)[T\s](\d\d:\d\d:\d\d(?:\.\d+)?)(?:Z|([+-]\d\d)(?::?(\d\d))?)$/i;
const LEAP_SECOND = /^(.+T\d\d:\d\d):60(?:\.\d+)?(Z|[+-]\d\d(?::?\d\d)?)$/i;

function asEcmaScriptWrites(text) {
  const form = SCHEMA_FORM.exec(text);
  if (form === null) return text;
  const zone = form[3] === undefined ? 'Z' : `${form[3]}:${form[4] ?? '00'}`;
  return `${form[1]}T${form[2]}${zone}`;
}

/** Milliseconds since the epoch, or NaN; `reading` is 'earliest' or 'latest'. */
export function instantOf(text, reading) {
  if (typeof text !== 'string') return Number.NaN;
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
