// Public API of protocol times: the one PROTOCOL `date-time` check and the reading of a time as an instant, a leap
// second on the side its reader names (P175, P178, P202).
export { dateTimeInstant, isDateTime } from './date-time.ts';
export { instantOf, type LeapSecondReading } from './instant.ts';
export { FIRST_RFC3339_MS, isRfc3339Instant, isRfc3339Second, LAST_RFC3339_MS } from './rfc3339-range.ts';
