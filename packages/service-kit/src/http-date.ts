// HTTP-dates (RFC 9110 §5.6.7) as a recipient must read them, and If-Modified-Since (§13.1.3) on top: exactly the
// grammar, never Date.parse's guesses (an RFC 3339 time, a bare date, `+0000`, lower case, a weekday that is not
// that date's all read as dates there, and bought a 304 for a document that had changed). P212; moved here from the
// revocation service so every service reads the header one way (P245).

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// The grammar's literals are case-sensitive (%s in RFC 9110 §5.6.7); single spaces only.
const IMF_FIXDATE = new RegExp(`^(${DAYS.join('|')}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^(${LONG_DAYS.join('|')}), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^(${DAYS.join('|')}) (${MONTH}) ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

interface DateFields {
  readonly weekday: number;
  readonly day: string;
  readonly month: string;
  readonly year: number;
  readonly hour: string;
  readonly minute: string;
  readonly second: string;
}

function fieldsOf(text: string, nowMs: number): DateFields | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m !== null) {
    const [, weekday = '', day = '', month = '', year = '', hour = '', minute = '', second = ''] = m;
    return { weekday: DAYS.indexOf(weekday), day, month, year: Number(year), hour, minute, second };
  }
  m = RFC850_DATE.exec(text);
  if (m !== null) {
    const [, weekday = '', day = '', month = '', yy = '', hour = '', minute = '', second = ''] = m;
    // §5.6.7: a two-digit year more than 50 years in the future is the most recent past year with those digits.
    const nowYear = new Date(nowMs).getUTCFullYear();
    let year = nowYear - (nowYear % 100) + Number(yy);
    if (year > nowYear + 50) year -= 100;
    return { weekday: LONG_DAYS.indexOf(weekday), day, month, year, hour, minute, second };
  }
  m = ASCTIME_DATE.exec(text);
  if (m !== null) {
    const [, weekday = '', month = '', day = '', hour = '', minute = '', second = '', year = ''] = m;
    return {
      weekday: DAYS.indexOf(weekday),
      day: day.trim(),
      month,
      year: Number(year),
      hour,
      minute,
      second,
    };
  }
  return undefined;
}

/**
 * The instant an HTTP-date names (RFC 9110 §5.6.7: IMF-fixdate, or the obsolete RFC 850 and asctime forms a
 * recipient must also accept), in milliseconds; undefined for anything else: another syntax, a date that does not
 * exist (31 Feb, 24:00) or whose weekday is not that date's. A leap second (:60) reads as the second before it,
 * the earlier instant, so that it can only make a 304 less likely.
 */
export function parseHttpDate(text: string, nowMs: number): number | undefined {
  const f = fieldsOf(text, nowMs);
  if (f === undefined) return undefined;
  const [day, hour, minute, second] = [f.day, f.hour, f.minute, f.second].map(Number) as [
    number,
    number,
    number,
    number,
  ];
  const month = MONTHS.indexOf(f.month);
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const date = new Date(Date.UTC(f.year, month, day, hour, minute, Math.min(second, 59)));
  // Date.UTC maps years 0–99 to 1900–1999; every date HTTP can write has four digits or was read above.
  date.setUTCFullYear(f.year);
  if (date.getUTCMonth() !== month || date.getUTCDate() !== day || date.getUTCDay() !== f.weekday)
    return undefined;
  return date.getTime();
}

/**
 * True when a document last modified at `modifiedMs` (full precision) is unmodified since the If-Modified-Since
 * date. A value that is not an HTTP-date, or a date after the service's clock (it cannot be a Last-Modified the
 * service gave), is ignored (RFC 9110 §13.1.3): the document is sent.
 */
export function unmodifiedSince(modifiedMs: number, ifModifiedSince: string, nowMs: number): boolean {
  const since = parseHttpDate(ifModifiedSince, nowMs);
  return since !== undefined && since <= nowMs && modifiedMs <= since;
}
